package einvoice

import (
	"fmt"
	"strings"
)

// A path is a small XPath subset the mapping tables are written in,
// relative to a context element:
//
//	cac:AccountingSupplierParty/cac:Party/cbc:EndpointID
//	cac:PartyTaxScheme[cac:TaxScheme/cbc:ID=VAT]/cbc:CompanyID
//	cbc:TaxAmount[@currencyID=$BT-5]        ($BT-5: the value of BT-5, read earlier)
//	ram:TaxTotalAmount[@currencyID?=$BT-5]  (?=: equal, or the attribute absent)
//	cbc:InvoicedQuantity/@unitCode
//	cac:PartyTaxScheme[cac:TaxScheme/cbc:ID!=VAT]/cbc:CompanyID  (!=: present and different)
//	.  and  @schemeID                       (the context element itself, its attribute)
//
// Prefixes name namespaces through the syntax's table, so a document that
// binds other prefixes (or a default namespace) to the same URIs matches.
type path struct {
	src   string
	steps []step
	attr  string // a final /@attr: the value is the attribute, not the text
}

type step struct {
	space, local string
	pred         *predicate
}

// predicate is [rel=value] or [@attr=value]; value "$BT-n" is a variable.
// [rel!=value] holds for a value present and different.
type predicate struct {
	rel      *path
	attr     string
	value    string
	orAbsent bool
	not      bool
}

// compile parses src with ns (prefix → namespace URI). A table with a bad
// path is a programming error, caught by the package's tests.
func compile(src string, ns map[string]string) path {
	p := path{src: src}
	parts := splitSteps(src)
	for i, part := range parts {
		if strings.HasPrefix(part, "@") && i == len(parts)-1 {
			p.attr = part[1:]
			break
		}
		if part == "." {
			continue // the context element itself
		}
		p.steps = append(p.steps, compileStep(part, ns, src))
	}
	return p
}

func compileStep(part string, ns map[string]string, src string) step {
	name, pred, hasPred := strings.Cut(part, "[")
	prefix, local, ok := strings.Cut(name, ":")
	uri, known := ns[prefix]
	if !ok || !known || local == "" {
		panic(fmt.Sprintf("einvoice: bad path %q: step %q", src, part))
	}
	s := step{space: uri, local: local}
	if hasPred {
		s.pred = compilePredicate(strings.TrimSuffix(pred, "]"), ns, src)
	}
	return s
}

func compilePredicate(src string, ns map[string]string, whole string) *predicate {
	lhs, value, ok := strings.Cut(src, "=")
	if !ok {
		panic(fmt.Sprintf("einvoice: bad predicate in %q", whole))
	}
	p := &predicate{value: value}
	if strings.HasSuffix(lhs, "!") {
		lhs, p.not = strings.TrimSuffix(lhs, "!"), true
	}
	if strings.HasSuffix(lhs, "?") {
		lhs, p.orAbsent = strings.TrimSuffix(lhs, "?"), true
	}
	if strings.HasPrefix(lhs, "@") {
		p.attr = lhs[1:]
		return p
	}
	rel := compile(lhs, ns)
	p.rel = &rel
	return p
}

// splitSteps splits on the slashes outside brackets.
func splitSteps(src string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '/':
			if depth == 0 {
				parts = append(parts, src[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, src[start:])
}

// vars resolves a predicate's $BT-n variable.
type vars func(term string) string

// nodes returns the elements p's steps select from ctx, in document order.
func (p path) nodes(ctx *node, v vars) []*node {
	cur := []*node{ctx}
	for _, s := range p.steps {
		var next []*node
		for _, n := range cur {
			for _, k := range n.kids {
				if k.name.Space == s.space && k.name.Local == s.local && s.pred.holds(k, v) {
					next = append(next, k)
				}
			}
		}
		cur = next
	}
	return cur
}

// value returns the first non-empty value p selects from ctx and the
// element it came from.
func (p path) value(ctx *node, v vars) (string, *node) {
	for _, n := range p.nodes(ctx, v) {
		s := n.text
		if p.attr != "" {
			s, _ = n.attr(p.attr)
		}
		if s != "" {
			return s, n
		}
	}
	return "", nil
}

func (pr *predicate) holds(n *node, v vars) bool {
	if pr == nil {
		return true
	}
	want := pr.value
	if strings.HasPrefix(want, "$") {
		want = v(want[1:])
	}
	if pr.attr != "" {
		got, ok := n.attr(pr.attr)
		if pr.not {
			return ok && got != want
		}
		return (ok && want != "" && got == want) || (!ok && pr.orAbsent)
	}
	got, at := pr.rel.value(n, v)
	if pr.not {
		return at != nil && !strings.EqualFold(got, want)
	}
	return (at != nil && strings.EqualFold(got, want)) || (at == nil && pr.orAbsent)
}

// render writes n's absolute path with the syntax's prefixes (URI →
// prefix; "" for an unprefixed default namespace) and the position of a
// repeated element: /Invoice/cac:InvoiceLine[2]/cbc:ID.
func render(n *node, prefixes map[string]string, attr string) string {
	var parts []string
	for ; n != nil; n = n.parent {
		name := n.name.Local
		if pf := prefixes[n.name.Space]; pf != "" {
			name = pf + ":" + name
		}
		if n.repeated {
			name += fmt.Sprintf("[%d]", n.index)
		}
		parts = append(parts, name)
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString("/" + parts[i])
	}
	if attr != "" {
		b.WriteString("/@" + attr)
	}
	return b.String()
}
