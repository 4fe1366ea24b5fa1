package einvoice

import "strings"

// Profile is the rule set an invoice is judged by, told from the document
// itself: its syntax (the root element) and its specification identifier
// (BT-24, the guideline ID).
type Profile string

// The profiles Check tells apart.
const (
	// ProfileEN16931: a UBL or CII invoice under EN 16931 (the core,
	// Peppol BIS, Factur-X / ZUGFeRD 2 BASIC, EN 16931 and EXTENDED).
	ProfileEN16931 Profile = "en16931"
	// ProfileMinimum: Factur-X / ZUGFeRD 2 MINIMUM, which states only the
	// totals.
	ProfileMinimum Profile = "minimum"
	// ProfileBasicWL: Factur-X / ZUGFeRD 2 BASIC WL, which has no lines.
	ProfileBasicWL Profile = "basicwl"
	// ProfileXRechnung: the German CIUS XRechnung (or its extension), by
	// EN 16931 and its own BR-DE rules.
	ProfileXRechnung Profile = "xrechnung"
	// The ZUGFeRD 1.0 profiles (rsm:CrossIndustryDocument), by ZUGFeRD
	// 1.0's own requirements, which are the same for its three profiles.
	ProfileZUGFeRD1Basic    Profile = "zugferd1-basic"
	ProfileZUGFeRD1Comfort  Profile = "zugferd1-comfort"
	ProfileZUGFeRD1Extended Profile = "zugferd1-extended"
)

// ZUGFeRD1 reports whether p is a ZUGFeRD 1.0 profile.
func (p Profile) ZUGFeRD1() bool { return strings.HasPrefix(string(p), "zugferd1-") }

// Profile tells the invoice's rule set from its syntax and BT-24. A
// ZUGFeRD 1.0 document whose BT-24 names none of its three profiles
// (urn:ferd:CrossIndustryDocument:invoice:1p0:basic, :comfort, :extended,
// or a draft's urn:ferd:invoice:…) is taken as BASIC, the profile that
// requires least; the rules are the same for the three.
func (inv *Invoice) Profile() Profile {
	spec := strings.ToLower(strings.TrimSpace(inv.Specification))
	if inv.Syntax == ZUGFeRD1 {
		switch {
		case strings.HasSuffix(spec, ":extended"):
			return ProfileZUGFeRD1Extended
		case strings.HasSuffix(spec, ":comfort"):
			return ProfileZUGFeRD1Comfort
		}
		return ProfileZUGFeRD1Basic
	}
	switch {
	case strings.HasSuffix(spec, ":minimum"):
		return ProfileMinimum
	case strings.HasSuffix(spec, ":basicwl"):
		return ProfileBasicWL
	case strings.Contains(spec, "xrechnung"):
		// urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0,
		// its extension and CVD, and XRechnung 1.x's urn:xoev-de:kosit:standard:xrechnung_1.2
		return ProfileXRechnung
	}
	return ProfileEN16931
}
