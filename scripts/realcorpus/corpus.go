// Package realcorpus is the real corpus the evaluation commands share:
// the PDFs of testdata/real/<source>/, each with a truth file a person
// checked (<name>.json beside <name>.pdf), and the hybrid Factur-X /
// ZUGFeRD PDFs that testdata/real/einvoice.json lists, whose truth is the
// CII XML they embed (read with pdfdetach at load time); and how a
// committed invoice compares with its truth. scripts/evalreal runs the
// rules over it in process; scripts/evalinbox replays it through the real
// API, supplier by supplier. Both judge a committed field with WrongFields,
// so a false success means the same in both.
package realcorpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Document is one PDF of the real corpus and its truth.
type Document struct {
	Source string // the folder, "mustangproject", "invoiceplane", …
	File   string // the path, relative to the repository root
	Path   string // the path to read it at (the root joined)
	Truth  Truth
	// XML is, for a hybrid PDF whose visible page states other values than
	// its embedded XML (einvoice.json's "visible"), the truth of the XML
	// itself: what a reader of the XML, as the worker is, commits. Truth
	// is then the page's. Nil for every other document.
	XML    *Truth
	Origin string // sample data of a standard's own examples, from einvoice.json
}

// hybridEntry lists one hybrid PDF of testdata/einvoice/<source>/: its
// truth comes from the embedded XML, its language and any override from
// here.
type hybridEntry struct {
	Source       string `json:"source"`
	File         string `json:"file"`
	Language     string `json:"language"`
	Country      string `json:"country,omitempty"`
	DocumentType string `json:"documentType,omitempty"` // overrides the XML's type code (an Order-X order)
	// Visible overrides the XML's fields where the visible page, which the
	// rules read, states others (a sample built with another file's XML);
	// Note then says what differs.
	Visible *Truth `json:"visible,omitempty"`
	Note    string `json:"note,omitempty"`
	// Supplier is the truth's supplier key (see Truth.Supplier).
	Supplier string `json:"supplier,omitempty"`
	// Fields, when set, replaces the fields the XML vouches for with those
	// the visible page states as the XML does (a page that prints no due
	// date, or another total than its XML).
	Fields []string `json:"fields,omitempty"`
	// Expect and DuplicateOf as in Truth.
	Expect      string `json:"expect,omitempty"`
	DuplicateOf string `json:"duplicateOf,omitempty"`
	// Origin names sample data a project took from a standard's own
	// examples ("FeRD/FNFE sample data"): counted in a row of its own, so
	// that the figures can be read with and without it.
	Origin string `json:"origin,omitempty"`
}

// Load reads testdata/real/<source>/*.pdf under root with their truth
// files and the hybrid PDFs testdata/real/einvoice.json lists, sorted by
// file. The hybrid PDFs' truth needs pdfdetach (poppler-utils).
func Load(root string) ([]Document, error) {
	var docs []Document
	pdfs, err := filepath.Glob(filepath.Join(root, "testdata", "real", "*", "*.pdf"))
	if err != nil {
		return nil, err
	}
	for _, p := range pdfs {
		t, err := ReadTruthFile(strings.TrimSuffix(p, filepath.Ext(p)) + ".json")
		if err != nil {
			return nil, fmt.Errorf("truth of %s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		docs = append(docs, Document{Source: filepath.Base(filepath.Dir(p)), File: rel, Path: p, Truth: t})
	}
	hybrid, err := loadHybrid(root)
	if err != nil {
		return nil, err
	}
	docs = append(docs, hybrid...)
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].File < docs[j].File })
	return docs, nil
}

func loadHybrid(root string) ([]Document, error) {
	b, err := os.ReadFile(filepath.Join(root, "testdata", "real", "einvoice.json"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var entries []hybridEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("testdata/real/einvoice.json: %w", err)
	}
	docs := make([]Document, 0, len(entries))
	for _, e := range entries {
		rel := filepath.Join("testdata", "einvoice", e.Source, e.File)
		t, err := EmbeddedTruth(filepath.Join(root, rel))
		if errors.Is(err, ErrNoXML) && e.DocumentType != "" && e.DocumentType != "invoice" {
			err = nil // a document that is no invoice needs no invoice XML
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		t.Language, t.Country, t.Note = e.Language, e.Country, e.Note
		t.Supplier, t.Expect, t.DuplicateOf = e.Supplier, e.Expect, e.DuplicateOf
		if e.DocumentType != "" {
			t.DocumentType = e.DocumentType
		}
		if !Booked(t.DocumentType) {
			t.Fields = nil
		}
		if e.Fields != nil {
			t.Fields = e.Fields
		}
		var xml *Truth
		if v := e.Visible; v != nil {
			x := t
			x.VendorAliases = slices.Clone(t.VendorAliases)
			xml = &x
			t.InvoiceNumber, t.IssueDate, t.Total = pick(v.InvoiceNumber, t.InvoiceNumber), pick(v.IssueDate, t.IssueDate), pick(v.Total, t.Total)
			t.Vendor, t.Currency = pick(v.Vendor, t.Vendor), pick(v.Currency, t.Currency)
			t.Subtotal, t.Tax, t.DueDate = pick(v.Subtotal, t.Subtotal), pick(v.Tax, t.Tax), pick(v.DueDate, t.DueDate)
			t.VendorAliases = append(t.VendorAliases, v.VendorAliases...)
		}
		if err := t.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		if xml != nil && slices.Equal(xml.Fields, t.Fields) && sameValues(*xml, t) {
			xml = nil // the override changes no vouched value
		}
		source := e.Source + " (hybrid)"
		if e.Origin != "" {
			source = e.Source + " (hybrid, " + e.Origin + ")"
		}
		docs = append(docs, Document{Source: source, File: rel, Path: filepath.Join(root, rel), Truth: t, XML: xml, Origin: e.Origin})
	}
	return docs, nil
}

// sameValues: a and b state the same value of every vouchable field.
func sameValues(a, b Truth) bool {
	for _, f := range Vouchable {
		if a.Value(f) != b.Value(f) {
			return false
		}
	}
	return true
}

func pick(override, v string) string {
	if override != "" {
		return override
	}
	return v
}
