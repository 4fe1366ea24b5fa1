package console

import (
	"net/http"
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

// formValues are a form's values as strings: the scalar inputs by name
// ("invoiceNumber", "taxIncluded", "accountingTax.currency", …) and each
// list's rows, one string per column.
type formValues struct {
	scalars map[string]string
	lists   map[string][][]string
}

// valuesOf is an extraction as form values.
func valuesOf(x extract.Extraction) formValues {
	v := formValues{scalars: scalarsOf(x), lists: map[string][][]string{}}
	if !extract.IsBooked(v.scalars["documentType"]) {
		v.scalars["documentType"] = "" // not a booked type: the select shows that nothing was chosen
	}
	v.scalars["taxIncluded"] = strconv.FormatBool(x.TaxIncluded)
	if t := x.AccountingTax; t != nil {
		v.scalars["accountingTax.currency"], v.scalars["accountingTax.amount"] = t.Currency, t.Amount
	}
	for _, l := range x.LineItems {
		v.lists["lineItems"] = append(v.lists["lineItems"], []string{l.Description, l.Quantity, l.UnitPrice, l.Amount})
	}
	for _, c := range x.Charges {
		v.lists["charges"] = append(v.lists["charges"], []string{c.Kind, c.Amount, c.Reason})
	}
	for _, r := range x.TaxBreakdown {
		v.lists["taxBreakdown"] = append(v.lists["taxBreakdown"], []string{r.Rate, r.TaxableAmount, r.TaxAmount, r.Category})
	}
	return v
}

// scalarsOf are x's string fields by name (extract.CorrectionScalars).
func scalarsOf(x extract.Extraction) map[string]string {
	return map[string]string{
		"documentType": x.DocumentType, "invoiceNumber": x.InvoiceNumber, "issueDate": x.IssueDate,
		"dueDate": x.DueDate, "vendor": x.Vendor, "currency": x.Currency, "subtotal": x.Subtotal,
		"tax": x.Tax, "total": x.Total, "paidAmount": x.PaidAmount, "rounding": x.Rounding,
		"amountDue": x.AmountDue, "precedingInvoice": x.PrecedingInvoice,
	}
}

// read is what was read of a document, as the form shows it: its values,
// what vouches for each, and the failing check of each field.
type read struct {
	x      extract.Extraction
	values formValues
	status map[string]string
	failed map[string]string // field -> the check it fails
}

// empty reports whether nothing was read.
func (r read) empty() bool {
	for name, v := range r.values.scalars {
		if v != "" && name != "taxIncluded" && name != "documentType" {
			return false
		}
	}
	for _, rows := range r.values.lists {
		if len(rows) > 0 {
			return false
		}
	}
	return true
}

// readOf is what a rejection kept (nil: nothing).
func readOf(k *extract.Kept) read {
	r := read{failed: map[string]string{}}
	if k != nil {
		if k.Fields != nil {
			r.x = *k.Fields
		}
		kk := k.WithStatus()
		r.status = kk.Status
		for _, f := range k.Failed {
			if _, seen := r.failed[f.Field]; !seen {
				r.failed[f.Field] = f.Check
			}
		}
	}
	r.values = valuesOf(r.x)
	return r
}

// resultRead is a committed result as the approval form shows it: its
// lines as committed (the API puts an approval's corrections over
// extract.ExtractionOf, which may leave out lines it cannot judge again;
// the form sends the lines only when the operator changed them).
func resultRead(inv *extract.Invoice) read {
	r := read{failed: map[string]string{}}
	if inv == nil {
		r.values = valuesOf(r.x)
		return r
	}
	r.x = extract.ExtractionOf(*inv)
	r.x.LineItems = nil
	for _, l := range inv.LineItems {
		r.x.LineItems = append(r.x.LineItems, extract.ExtractedLine(l))
	}
	r.status = statusOf(inv)
	r.values = valuesOf(r.x)
	return r
}

// statusOf is what vouches for each field of a result: as committed, or
// computed for a result committed before results carried it.
func statusOf(inv *extract.Invoice) map[string]string {
	if inv.Status != nil {
		return inv.Status
	}
	return extract.FieldStatus(inv)
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

// place names the part of a field a problem concerns as the form shows
// it: "[1].kind" of the charges sent is "charge 3, kind" when the form's
// second row was removed; ".currency" is "currency".
func (s *sentForm) place(field, rest string) string {
	spec := specOf(field)
	if spec == nil || !strings.HasPrefix(rest, "[") {
		return strings.TrimPrefix(rest, ".")
	}
	idx, col, _ := strings.Cut(rest[1:], "]")
	i, err := strconv.Atoi(idx)
	row := i
	if s != nil && err == nil && i >= 0 && i < len(s.keptAt[field]) {
		row = s.keptAt[field][i]
	}
	out := spec.row + " " + strconv.Itoa(row+1)
	if col = strings.TrimPrefix(col, "."); col != "" {
		out += ", " + col
	}
	return out
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

// sentForm is the correction form as the browser sent it. A part the form
// did not hold (an input, or a list's count) is absent: never a change.
type sentForm struct {
	reason  string
	scalars map[string]string // by name, as in formValues; only those sent
	lists   map[string][][]string
	rows    map[string][]sentRow // every row with a value, removed ones too, for the form shown again
	// keptAt are, per list, the positions in rows of the rows sent (not
	// removed): the row a problem of the list's nth entry concerns.
	keptAt map[string][]int
}

// sentRow is one row of a list as sent.
type sentRow struct {
	cells  []string
	remove bool
}

// formScalars are the names of the scalar inputs: extract.CorrectionScalars,
// taxIncluded, and the tax in another currency's two.
var formScalars = append(slices.Clone(extract.CorrectionScalars), "taxIncluded", "accountingTax.currency", "accountingTax.amount")

func parseSentForm(r *http.Request) *sentForm {
	s := &sentForm{reason: r.PostForm.Get("reason"), scalars: map[string]string{},
		lists: map[string][][]string{}, rows: map[string][]sentRow{}, keptAt: map[string][]int{}}
	for _, name := range formScalars {
		key := "f-" + strings.ReplaceAll(name, ".", "-")
		if r.PostForm.Has(key) {
			s.scalars[name] = strings.TrimSpace(r.PostForm.Get(key))
		}
	}
	for i := range listSpecs {
		spec := &listSpecs[i]
		if !r.PostForm.Has(spec.count) {
			continue
		}
		n, _ := strconv.Atoi(r.PostForm.Get(spec.count))
		kept := [][]string{}
		for row := range min(max(n, 0), maxFormRows) {
			cells := make([]string, len(spec.cols))
			for j, c := range spec.cols {
				cells[j] = strings.TrimSpace(r.PostForm.Get(rowInput(spec, row, c.Name)))
			}
			if !hasValue(spec, cells) {
				continue
			}
			remove := r.PostForm.Get(rowInput(spec, row, "remove")) != ""
			if !remove {
				kept = append(kept, cells)
				s.keptAt[spec.field] = append(s.keptAt[spec.field], len(s.rows[spec.field]))
			}
			s.rows[spec.field] = append(s.rows[spec.field], sentRow{cells, remove})
		}
		s.lists[spec.field] = kept
	}
	return s
}

// hasValue reports whether a row holds anything: a select's choice alone
// (a charge's kind) is not a row.
func hasValue(spec *listSpec, cells []string) bool {
	for j, c := range spec.cols {
		if c.Options == nil && cells[j] != "" {
			return true
		}
	}
	return false
}

// corrections are the fields the operator changed from what was read.
func (s *sentForm) corrections(rd read) extract.Corrections {
	var c extract.Corrections
	changed := func(name string) (string, bool) {
		v, ok := s.scalars[name]
		return v, ok && v != rd.values.scalars[name]
	}
	for _, name := range extract.CorrectionScalars {
		if v, ok := changed(name); ok {
			*c.Scalar(name) = &v
		}
	}
	if v, ok := changed("taxIncluded"); ok {
		b := v == "true"
		c.TaxIncluded = &b
	}
	cur, amt := s.valueOr("accountingTax.currency", rd), s.valueOr("accountingTax.amount", rd)
	if cur != rd.values.scalars["accountingTax.currency"] || amt != rd.values.scalars["accountingTax.amount"] {
		c.AccountingTax = &extract.AccountingTax{Currency: cur, Amount: amt} // both empty: {} removes it
	}
	for field, rows := range s.lists {
		if slices.EqualFunc(rows, rd.values.lists[field], slices.Equal) {
			continue
		}
		setList(&c, field, rows)
	}
	return c
}

// valueOr is a scalar as sent, or as read when the form did not hold it.
func (s *sentForm) valueOr(name string, rd read) string {
	if v, ok := s.scalars[name]; ok {
		return v
	}
	return rd.values.scalars[name]
}

// setList makes c replace list field with rows (an empty list removes
// what was read).
func setList(c *extract.Corrections, field string, rows [][]string) {
	switch field {
	case "lineItems":
		lines := make([]extract.ExtractedLine, len(rows))
		for i, r := range rows {
			lines[i] = extract.ExtractedLine{Description: r[0], Quantity: r[1], UnitPrice: r[2], Amount: r[3]}
		}
		c.LineItems = &lines
	case "charges":
		charges := make([]extract.Charge, len(rows))
		for i, r := range rows {
			charges[i] = extract.Charge{Kind: r[0], Amount: r[1], Reason: r[2]}
		}
		c.Charges = &charges
	case "taxBreakdown":
		rates := make([]extract.TaxSubtotal, len(rows))
		for i, r := range rows {
			rates[i] = extract.TaxSubtotal{Rate: r[0], TaxableAmount: r[1], TaxAmount: r[2], Category: r[3]}
		}
		c.TaxBreakdown = &rates
	}
}

// valueText is field of x as a person reads it: a list's rows separated
// by semicolons, "" when absent.
func valueText(x extract.Extraction, field string) string {
	v := valuesOf(x)
	switch field {
	case "documentType":
		return typeWord(x.DocumentType)
	case "taxIncluded":
		if x.TaxIncluded {
			return "included in the prices"
		}
		return "added to the net amount"
	case "accountingTax":
		return strings.TrimSpace(v.scalars["accountingTax.amount"] + " " + v.scalars["accountingTax.currency"])
	}
	if spec := specOf(field); spec != nil {
		rows := make([]string, 0, len(v.lists[field]))
		for _, cells := range v.lists[field] {
			rows = append(rows, strings.Join(slices.DeleteFunc(slices.Clone(cells), func(s string) bool { return s == "" }), " "))
		}
		return strings.Join(rows, "; ")
	}
	return scalarsOf(x)[field]
}

// fieldLabel is a field's name in words, capitalised.
func fieldLabel(name string) string {
	if w, ok := fieldWords[name]; ok {
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return name
}
