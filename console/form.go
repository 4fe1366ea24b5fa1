package console

import (
	"slices"
	"strconv"
	"strings"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// The correction form's model. It holds every field a correction may set
// (extract.CorrectionFields), in groups, each pre-filled with what was read
// (or with what the operator sent, after a refusal) and marked with what
// vouches for it. Lists (line items, charges and allowances, the tax per
// rate) are rows of inputs with a remove box each and a few empty rows to
// add to them: the console runs no script. Only what the operator changed
// is sent as corrections.

// option is one choice of a select.
type option struct{ Value, Label string }

// input is one form control: a text input, or a select when it has
// options.
type input struct {
	ID, Name string
	// Label names the control when its field has several (the currency
	// and the amount of a tax in another currency), or a list's cell.
	Label       string
	Value, Hint string
	Options     []option
	Size        int
	// Invalid and DescribedBy tie a field's input to its marks: a failing
	// check or an error, and the IDs of the texts that explain them.
	Invalid     bool
	DescribedBy string
}

// formField is one field of the form: one input (a scalar), two (the tax
// in another currency) or a list of rows.
type formField struct {
	Name, Label, Help string
	Inputs            []input
	List              *listField
	Read              string // what was read, shown when the value differs
	Status            string // what vouches for what was read; "" when nothing was
	Wide              bool   // takes a whole row of its group
	Failing           bool   // a failing check concerns this field
	Why               string // the failing check, in words
	Errors            []string
}

// listField is the rows of a list field.
type listField struct {
	Count   string // the hidden input that says how many rows the form holds
	Columns []column
	Rows    []listRow
}

// listRow is one row of a list: its inputs, and whether the operator
// ticked its remove box.
type listRow struct {
	Index  int
	Number int // 1-based, for the labels
	Cells  []input
	Remove bool
	// New marks an empty row offered to add to the list: it has nothing
	// to remove.
	New                     bool
	RemoveName, RemoveLabel string
}

// formGroup is a titled part of the form.
type formGroup struct {
	Legend string
	Fields []*formField
}

// correctionForm is the form's content.
type correctionForm struct {
	Groups      []formGroup
	Reason      string
	Overrule    bool // the document was rejected as not an invoice
	ReadNothing bool // nothing of the document was kept
	Errors      []string
}

// HasErrors reports whether a refused submission left an error on the
// form: the approval's correction part opens to show it.
func (f *correctionForm) HasErrors() bool {
	if len(f.Errors) > 0 {
		return true
	}
	for _, g := range f.Groups {
		for _, ff := range g.Fields {
			if len(ff.Errors) > 0 {
				return true
			}
		}
	}
	return false
}

// Field returns the form's field name; nil when it has none.
func (f *correctionForm) Field(name string) *formField {
	for _, g := range f.Groups {
		for _, ff := range g.Fields {
			if ff.Name == name {
				return ff
			}
		}
	}
	return nil
}

// formLayout is the form's groups and their fields, in order: every field
// of extract.CorrectionFields once (a test holds it to that).
var formLayout = []struct {
	legend string
	fields []string
}{
	{"Document", []string{"documentType", "invoiceNumber", "precedingInvoice", "vendor", "issueDate", "dueDate", "currency"}},
	{"Lines and amounts", []string{"lineItems", "subtotal", "charges", "tax", "taxBreakdown", "taxIncluded", "total"}},
	{"Payment and the buyer's books", []string{"paidAmount", "rounding", "amountDue", "accountingTax"}},
}

// formHints are the inputs' placeholders.
var formHints = map[string]string{
	"invoiceNumber": "exactly as printed", "precedingInvoice": "as printed, when stated",
	"issueDate": "YYYY-MM-DD", "dueDate": "YYYY-MM-DD, optional", "currency": "ISO 4217 code, e.g. EUR",
	"subtotal": "e.g. 1234.56", "tax": "e.g. 234.56", "total": "e.g. 1469.12 or -8.79",
	"paidAmount": "optional, e.g. 500.00", "rounding": "optional, e.g. 0.01", "amountDue": "optional, e.g. 969.12",
	"accountingTax.currency": "e.g. EUR", "accountingTax.amount": "e.g. 123.45",
}

// formHelp says what a field is, under its label.
var formHelp = map[string]string{
	"documentType":     "A credit note or a corrective invoice keeps its amounts as printed (negative ones too).",
	"precedingInvoice": "The invoice a credit note or corrective invoice corrects (BT-25).",
	"subtotal":         "The net amount of the lines, before charges, allowances and tax.",
	"charges":          "Amounts between the net amount and the total other than tax: shipping, fees (positive), discounts (negative). Tick remove on a row that was misread; an empty list removes every charge read.",
	"taxBreakdown":     "The tax of each rate (BG-23), when the document states it; optional.",
	"paidAmount":       "Paid or prepaid before this document (BT-113).",
	"rounding":         "Added to the total to round the amount due (BT-114).",
	"amountDue":        "The total less what was paid plus the rounding (BT-115).",
	"accountingTax":    "The total tax stated in a second currency for the buyer's books (BT-111): shown, never added to the total.",
}

// wideFields take a whole row of their group: long values, long choices.
var wideFields = []string{"documentType", "vendor", "taxIncluded", "accountingTax"}

// formSelects are the choices of the fields that are selects.
var formSelects = map[string][]option{
	"documentType": {{extract.DocInvoice, "invoice"}, {extract.DocCreditNote, "credit note"},
		{extract.DocCorrectiveInvoice, "corrective invoice"}},
	"taxIncluded": {{"false", "added to the net amount (total = net + charges + tax)"},
		{"true", "included in the prices (total = net + charges)"}},
}

// column is one column of a list.
type column struct {
	Name, Label, Hint string
	Size              int
	Options           []option
}

// listSpec describes a list field: its form names and its columns.
type listSpec struct {
	field  string // the correction's field
	count  string // the hidden count input
	prefix string // of the row inputs: <prefix>-<row>-<column>
	row    string // a row, in words, for the labels
	cols   []column
}

// formExtraRows is how many empty rows each list offers beyond the rows
// read, to add to it.
const formExtraRows = 2

// maxFormRows bounds the rows a form may send per list.
const maxFormRows = 1000

var chargeKinds = []option{{"", "by its sign"}, {extract.ChargeDiscount, "discount"},
	{extract.ChargeShipping, "shipping"}, {extract.ChargeFee, "fee"}, {extract.ChargeRounding, "rounding"}}

var taxCategories = []option{{"", "—"}, {"S", "S standard rate"}, {"Z", "Z zero rated"}, {"E", "E exempt"},
	{"AE", "AE reverse charge"}, {"K", "K intra-EU supply"}, {"G", "G export"}, {"O", "O not subject to VAT"},
	{"L", "L Canary Islands"}, {"M", "M Ceuta and Melilla"}}

var listSpecs = []listSpec{
	{field: "lineItems", count: "lines", prefix: "li", row: "line", cols: []column{
		{Name: "description", Label: "Description"}, {Name: "quantity", Label: "Qty", Size: 5},
		{Name: "unitPrice", Label: "Unit price", Size: 9}, {Name: "amount", Label: "Amount", Size: 9}}},
	{field: "charges", count: "charges", prefix: "ch", row: "charge", cols: []column{
		{Name: "kind", Label: "Kind", Options: chargeKinds}, {Name: "amount", Label: "Amount", Size: 9, Hint: "-12.00"},
		{Name: "reason", Label: "Reason as printed"}}},
	{field: "taxBreakdown", count: "rates", prefix: "tx", row: "rate", cols: []column{
		{Name: "rate", Label: "Rate %", Size: 5, Hint: "20"}, {Name: "taxableAmount", Label: "Taxable amount", Size: 9},
		{Name: "taxAmount", Label: "Tax", Size: 9}, {Name: "category", Label: "Category", Options: taxCategories}}},
}

func specOf(field string) *listSpec {
	for i := range listSpecs {
		if listSpecs[i].field == field {
			return &listSpecs[i]
		}
	}
	return nil
}

// newCorrectionForm builds the form from what was read (rd), the reason
// the job was rejected for, the values sent (sent, nil on a first view)
// and the problems of a refused submission.
func newCorrectionForm(rd read, reason string, sent *sentForm, problems []jobs.FieldError) *correctionForm {
	f := &correctionForm{Overrule: reason == extract.ReasonNotAnInvoice, ReadNothing: rd.empty()}
	errs := fieldErrors(problems, sent, &f.Errors)
	for _, g := range formLayout {
		group := formGroup{Legend: g.legend}
		for _, name := range g.fields {
			ff := &formField{Name: name, Label: fieldLabel(name), Help: formHelp[name], Status: rd.status[name],
				Errors: errs[name], Wide: slices.Contains(wideFields, name)}
			if check, failing := rd.failed[name]; failing {
				ff.Failing, ff.Why = true, describe(check)
				ff.Status = extract.StatusToCheck
			}
			if spec := specOf(name); spec != nil {
				ff.List = listOf(spec, rd, sent)
			} else {
				ff.Inputs, ff.Read = inputsOf(name, rd, sent)
				ff.describeInputs()
			}
			group.Fields = append(group.Fields, ff)
		}
		f.Groups = append(f.Groups, group)
	}
	if sent != nil {
		f.Reason = sent.reason
	}
	return f
}

// fieldErrors files the problems of a refused submission by the field of
// the form they concern ("corrections.charges[1].kind" under charges,
// naming the row as the form shows it); the problems of the corrections
// as a whole go to general.
func fieldErrors(problems []jobs.FieldError, sent *sentForm, general *[]string) map[string][]string {
	errs := map[string][]string{}
	for _, p := range problems {
		name, ok := strings.CutPrefix(p.Field, "corrections.")
		switch {
		case ok:
			root, rest := name, ""
			if i := strings.IndexAny(name, ".["); i >= 0 {
				root, rest = name[:i], name[i:]
			}
			problem := p.Problem
			if rest != "" {
				problem = sent.place(root, rest) + ": " + problem
			}
			errs[root] = append(errs[root], problem)
		case p.Field == "corrections":
			*general = append(*general, p.Problem)
		}
	}
	return errs
}

// describeInputs ties the field's inputs to its help, its failing check
// and its errors.
func (f *formField) describeInputs() {
	var ids []string
	if f.Help != "" {
		ids = append(ids, "help-"+f.Name)
	}
	if f.Failing {
		ids = append(ids, "why-"+f.Name)
	}
	if len(f.Errors) > 0 {
		ids = append(ids, "err-"+f.Name)
	}
	for i := range f.Inputs {
		f.Inputs[i].Invalid, f.Inputs[i].DescribedBy = f.Failing || len(f.Errors) > 0, strings.Join(ids, " ")
	}
}

// inputsOf are the inputs of a scalar field (or of the tax in another
// currency) and the value read, shown when the input's value differs.
func inputsOf(name string, rd read, sent *sentForm) ([]input, string) {
	names := []string{name}
	if name == "accountingTax" {
		names = []string{"accountingTax.currency", "accountingTax.amount"}
	}
	var out []input
	var readText, shown []string
	for _, n := range names {
		in := input{ID: "c-" + strings.ReplaceAll(n, ".", "-"), Name: "f-" + strings.ReplaceAll(n, ".", "-"),
			Value: rd.values.scalars[n], Hint: formHints[n], Options: formSelects[n]}
		if sent != nil {
			if v, ok := sent.scalars[n]; ok {
				in.Value = v
			}
		}
		if len(names) > 1 {
			_, part, _ := strings.Cut(n, ".")
			in.Label = fieldLabel(name) + ": " + part
		}
		if in.Options != nil {
			in.Options = withChoice(in.Options, in.Value, "not read")
		}
		out = append(out, in)
		readText, shown = append(readText, rd.values.scalars[n]), append(shown, in.Value)
	}
	r := strings.TrimSpace(strings.Join(readText, " "))
	if name == "taxIncluded" || name == "documentType" || slices.Equal(readText, shown) {
		r = "" // a select shows its choices; an unchanged value needs no reminder
	}
	return out, r
}

// listOf are a list field's rows: as read, or as sent (removed rows still
// ticked), and formExtraRows empty ones.
func listOf(spec *listSpec, rd read, sent *sentForm) *listField {
	l := &listField{Count: spec.count, Columns: spec.cols}
	type row struct {
		cells         []string
		remove, added bool
	}
	var rows []row
	if sent != nil && sent.lists[spec.field] != nil {
		for _, r := range sent.rows[spec.field] {
			rows = append(rows, row{cells: r.cells, remove: r.remove})
		}
	} else {
		for _, cells := range rd.values.lists[spec.field] {
			rows = append(rows, row{cells: cells})
		}
	}
	for range formExtraRows {
		rows = append(rows, row{cells: make([]string, len(spec.cols)), added: true})
	}
	for i, r := range rows {
		lr := listRow{Index: i, Number: i + 1, Remove: r.remove, New: r.added,
			RemoveName: rowInput(spec, i, "remove"), RemoveLabel: "remove " + spec.row + " " + strconv.Itoa(i+1)}
		for j, c := range spec.cols {
			lr.Cells = append(lr.Cells, input{
				Name: rowInput(spec, i, c.Name), Label: rowLabel(spec, i, r.added) + " " + strings.ToLower(c.Label),
				Value: r.cells[j], Hint: c.Hint, Options: withChoice(c.Options, r.cells[j], r.cells[j]), Size: c.Size})
		}
		l.Rows = append(l.Rows, lr)
	}
	return l
}

// rowLabel names a row for the labels of its inputs.
func rowLabel(spec *listSpec, i int, isNew bool) string {
	if isNew {
		return "new " + spec.row + " " + strconv.Itoa(i+1)
	}
	return spec.row + " " + strconv.Itoa(i+1)
}

// withChoice are options with value among them (labelled label), so a
// select shows, and sends back unchanged, a value read that is not one of
// its usual choices.
func withChoice(options []option, value, label string) []option {
	if options == nil || slices.ContainsFunc(options, func(o option) bool { return o.Value == value }) {
		return options
	}
	return append([]option{{value, label}}, options...)
}

func rowInput(spec *listSpec, row int, col string) string {
	return spec.prefix + "-" + strconv.Itoa(row) + "-" + col
}

// fieldLabel is a field's name in words, capitalised.
func fieldLabel(name string) string {
	if w, ok := fieldWords[name]; ok {
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return name
}
