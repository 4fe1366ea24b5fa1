package einvoice

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
)

// kind says how a mapped value is normalised when it is read.
type kind int

const (
	text     kind = iota // trimmed as written
	amount               // xs:decimal → canonical decimal string (every digit kept)
	quantity             // the same, for quantities, prices and percentages
	date                 // xs:date (UBL) → YYYY-MM-DD
	date102              // UN/CEFACT DateTimeString format 102 (YYYYMMDD) → YYYY-MM-DD
)

// field maps one business term of a T (Invoice, Line, …) to its path in a
// syntax. Several fields of one term are alternatives, tried in order.
type field[T any] struct {
	term string
	src  string
	kind kind
	at   func(*T) *string
	p    path
}

// group is a repeated business group: the elements src selects (several
// srcs are alternatives: UBL's InvoiceLine or CreditNoteLine) and the
// fields read from each.
type group[T any] struct {
	term   string
	srcs   []string
	fields []field[T]
	ps     []path
}

// allowanceGroup is BG-20/BG-21: one element type whose indicator says
// charge (true) or allowance (false).
type allowanceGroup struct {
	group[AllowanceCharge]
	indicator string
	ind       path
	// logistics are the CII and ZUGFeRD 1.0 logistics service charges
	// (ram:SpecifiedLogisticsServiceCharge, Extended profiles): charges
	// without an indicator, counted in BT-108 like the others.
	logistics group[AllowanceCharge]
}

// syntaxDef is one syntax's mapping table.
type syntaxDef struct {
	syntax   Syntax
	root     xml.Name
	ns       map[string]string // prefix → namespace URI, for the table's paths
	prefixes map[string]string // namespace URI → prefix, for rendering paths
	header   []field[Invoice]
	// presence are the groups recorded in Paths where present, for the
	// rules that require them: BG-5 and BG-8 (the seller's and buyer's
	// postal addresses), BG-11 (the seller's tax representative), BG-16
	// (payment instructions).
	presence   []presence
	sellerIDs  group[Identifier] // BT-29
	vat        group[VATBreakdown]
	allowances allowanceGroup
	lines      group[Line]
	// thirdParty is the path of BT-DEX-002 (XRechnung extension), if the
	// syntax has one.
	thirdParty   string
	thirdParties path
	// dropNoteLines: a line that states no amount, name or quantity is a
	// free-text note (ZUGFeRD 1.0 Extended), not an invoice line.
	dropNoteLines bool
}

// presence is a group whose path Paths records under term when present.
type presence struct {
	term, src string
	p         path
}

// compiled returns d with every path compiled.
func (d *syntaxDef) compiled() *syntaxDef {
	compileFields(d.header, d.ns)
	for i := range d.presence {
		d.presence[i].p = compile(d.presence[i].src, d.ns)
	}
	d.sellerIDs.compile(d.ns)
	d.vat.compile(d.ns)
	d.allowances.compile(d.ns)
	d.allowances.ind = compile(d.allowances.indicator, d.ns)
	d.allowances.logistics.compile(d.ns)
	d.lines.compile(d.ns)
	if d.thirdParty != "" {
		d.thirdParties = compile(d.thirdParty, d.ns)
	}
	d.prefixes = map[string]string{}
	for pf, uri := range d.ns {
		if _, ok := d.prefixes[uri]; !ok || pf < d.prefixes[uri] {
			d.prefixes[uri] = pf
		}
	}
	if d.syntax == UBLInvoice || d.syntax == UBLCreditNote {
		d.prefixes[d.root.Space] = "" // written /Invoice, as the UBL guides do
	}
	return d
}

func compileFields[T any](fs []field[T], ns map[string]string) {
	for i := range fs {
		fs[i].p = compile(fs[i].src, ns)
	}
}

func (g *group[T]) compile(ns map[string]string) {
	compileFields(g.fields, ns)
	for _, s := range g.srcs {
		g.ps = append(g.ps, compile(s, ns))
	}
}

// syntaxes are the tables, by root element.
var syntaxes = []*syntaxDef{ublInvoice.compiled(), ublCreditNote.compiled(), cii.compiled(), zugferd1.compiled()}

func syntaxOf(root xml.Name) *syntaxDef {
	for _, d := range syntaxes {
		if d.root == root {
			return d
		}
	}
	return nil
}

// Sniff tells from the root element whether data is an e-invoice of a
// supported syntax, and which. It reads only up to the root's start tag
// and reports false for anything else: other XML, a DOCTYPE, not XML.
func Sniff(data []byte) (Syntax, bool) {
	if len(data) > MaxBytes {
		return "", false
	}
	d := newDecoder(data)
	for {
		tok, err := d.Token()
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case xml.Directive:
			return "", false
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				return "", false
			}
		case xml.StartElement:
			if def := syntaxOf(t.Name); def != nil {
				return def.syntax, true
			}
			return "", false
		}
	}
}

// Parse reads an e-invoice. It returns ErrNotEInvoice for well-formed XML
// of another kind, a *SyntaxError for XML that is not well-formed, and
// ErrDoctype, ErrTooLarge or ErrTooDeep for a document it refuses to read.
// It does not judge the invoice: see Check.
func Parse(data []byte) (*Invoice, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	def := syntaxOf(root.name)
	if def == nil {
		return nil, ErrNotEInvoice
	}
	return def.read(root), nil
}

// read applies the table to a parsed document.
func (d *syntaxDef) read(root *node) *Invoice {
	inv := &Invoice{Syntax: d.syntax, Paths: map[string]string{}}
	v := func(term string) string { return inv.termValue(term) }
	for _, f := range d.header {
		if dst := f.at(inv); *dst == "" {
			if s, at := f.p.value(root, v); at != nil {
				*dst = normalise(s, f.kind)
				inv.Paths[f.term] = render(at, d.prefixes, f.p.attr)
			}
		}
	}
	for _, pr := range d.presence {
		if ns := pr.p.nodes(root, v); len(ns) > 0 {
			inv.Paths[pr.term] = render(ns[0], d.prefixes, "")
		}
	}
	inv.SellerIDs = slices.DeleteFunc(readGroup(d, &d.sellerIDs, root, inv, v, nil), func(id Identifier) bool { return id.ID == "" })
	inv.VAT = readGroup(d, &d.vat, root, inv, v, nil)
	inv.Lines = readGroup(d, &d.lines, root, inv, v, func(l *Line, path string) { l.Path = path })
	if d.dropNoteLines {
		inv.Lines = slices.DeleteFunc(inv.Lines, func(l Line) bool {
			return l.NetAmount == "" && l.Name == "" && l.Quantity == ""
		})
	}
	d.readAllowances(root, inv, v)
	for i, n := range d.thirdParties.nodes(root, v) {
		if n.text != "" {
			inv.ThirdPartyPaid = append(inv.ThirdPartyPaid, normalise(n.text, amount))
			inv.Paths[fmt.Sprintf("BT-DEX-002[%d]", i+1)] = render(n, d.prefixes, "")
		}
	}
	return inv
}

// termValue is the value of a header term already read, for predicates.
func (inv *Invoice) termValue(term string) string {
	switch term {
	case "BT-5":
		return inv.Currency
	case "BT-6":
		return inv.TaxCurrency
	}
	panic("einvoice: no variable " + term)
}

func readGroup[T any](d *syntaxDef, g *group[T], root *node, inv *Invoice, v vars, setPath func(*T, string)) []T {
	var out []T
	for _, p := range g.ps {
		for _, n := range p.nodes(root, v) {
			var item T
			readFields(g.fields, n, &item, v)
			where := render(n, d.prefixes, "")
			inv.Paths[fmt.Sprintf("%s[%d]", g.term, len(out)+1)] = where
			if setPath != nil {
				setPath(&item, where)
			}
			out = append(out, item)
		}
	}
	return out
}

func readFields[T any](fs []field[T], n *node, item *T, v vars) {
	for _, f := range fs {
		if dst := f.at(item); *dst == "" {
			if s, at := f.p.value(n, v); at != nil {
				*dst = normalise(s, f.kind)
			}
		}
	}
}

func (d *syntaxDef) readAllowances(root *node, inv *Invoice, v vars) {
	g := &d.allowances
	add := func(n *node, ac AllowanceCharge) {
		term, list := "BG-20", &inv.Allowances
		if ac.Charge {
			term, list = "BG-21", &inv.Charges
		}
		*list = append(*list, ac)
		inv.Paths[fmt.Sprintf("%s[%d]", term, len(*list))] = render(n, d.prefixes, "")
	}
	for _, p := range g.ps {
		for _, n := range p.nodes(root, v) {
			var ac AllowanceCharge
			readFields(g.fields, n, &ac, v)
			ind, _ := g.ind.value(n, v)
			ac.Charge = strings.EqualFold(ind, "true") || ind == "1"
			add(n, ac)
		}
	}
	for _, p := range g.logistics.ps {
		for _, n := range p.nodes(root, v) {
			ac := AllowanceCharge{Charge: true}
			readFields(g.logistics.fields, n, &ac, v)
			add(n, ac)
		}
	}
}

// normalise converts a value read as written; a value that does not fit
// its kind is kept as written, for Check to report.
func normalise(s string, k kind) string {
	switch k {
	case amount, quantity:
		if c, ok := canonicalDecimal(s); ok {
			return c
		}
	case date:
		// xs:date may carry a time zone ("2024-01-15+01:00", "2024-01-15Z").
		if len(s) > 10 && (s[10] == 'Z' || s[10] == '+' || s[10] == '-') {
			return s[:10]
		}
	case date102:
		if len(s) == 8 && digits(s) {
			return s[:4] + "-" + s[4:6] + "-" + s[6:]
		}
	}
	return s
}
