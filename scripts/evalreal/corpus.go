package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	readstage "github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/pdf"
)

// document is one PDF of the real corpus and its truth.
type document struct {
	source string // the folder, "mustangproject", "invoiceplane", …
	file   string // the path, relative to the repository root
	path   string // the path to read it at (the root joined)
	truth  truth
	origin string // sample data of a standard's own examples, from einvoice.json
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
	Visible *truth `json:"visible,omitempty"`
	Note    string `json:"note,omitempty"`
	// Supplier is the truth's supplier key (see truth.Supplier).
	Supplier string `json:"supplier,omitempty"`
	// Fields, when set, replaces the fields the XML vouches for with those
	// the visible page states as the XML does (a page that prints no due
	// date, or another total than its XML).
	Fields []string `json:"fields,omitempty"`
	// Expect and DuplicateOf as in truth.
	Expect      string `json:"expect,omitempty"`
	DuplicateOf string `json:"duplicateOf,omitempty"`
	// Origin names sample data a project took from a standard's own
	// examples ("FeRD/FNFE sample data"): counted in a row of its own, so
	// that the figures can be read with and without it.
	Origin string `json:"origin,omitempty"`
}

// readText returns the text of a PDF. It is the one place the corpus is
// read: by default the project's own read stage (package document, as the
// worker reads a PDF: its pages' layout text, each ended by a form feed),
// with -text pdftotext the output of `pdftotext -layout`, the anchor.
var readText = readWithReader

// pdfReaders is the read stage, started on first use.
var pdfReaders = sync.OnceValues(func() (*readstage.Readers, error) {
	r, err := pdf.New(context.Background(), pdf.Config{})
	if err != nil {
		return nil, err
	}
	return readstage.New(readstage.Config{PDF: r}), nil
})

func readWithReader(path string) (string, error) {
	readers, err := pdfReaders()
	if err != nil {
		return "", fmt.Errorf("PDF reader: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	doc, err := readers.Read(context.Background(), "application/pdf", data, nil)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return doc.Text(), nil
}

func readWithPdftotext(path string) (string, error) {
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		return "", fmt.Errorf("pdftotext %s: %w", path, err)
	}
	return string(out), nil
}

// loadCorpus reads testdata/real/<source>/*.pdf with their truth files
// and the hybrid PDFs testdata/real/einvoice.json lists.
func loadCorpus(root string) ([]document, error) {
	var docs []document
	pdfs, err := filepath.Glob(filepath.Join(root, "testdata", "real", "*", "*.pdf"))
	if err != nil {
		return nil, err
	}
	for _, p := range pdfs {
		t, err := readTruthFile(strings.TrimSuffix(p, filepath.Ext(p)) + ".json")
		if err != nil {
			return nil, fmt.Errorf("truth of %s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		docs = append(docs, document{source: filepath.Base(filepath.Dir(p)), file: rel, path: p, truth: t})
	}
	hybrid, err := loadHybrid(root)
	if err != nil {
		return nil, err
	}
	docs = append(docs, hybrid...)
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].file < docs[j].file })
	return docs, nil
}

func loadHybrid(root string) ([]document, error) {
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
	docs := make([]document, 0, len(entries))
	for _, e := range entries {
		rel := filepath.Join("testdata", "einvoice", e.Source, e.File)
		t, err := embeddedTruth(filepath.Join(root, rel))
		if errors.Is(err, errNoXML) && e.DocumentType != "" && e.DocumentType != "invoice" {
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
		if !booked(t.DocumentType) {
			t.Fields = nil
		}
		if e.Fields != nil {
			t.Fields = e.Fields
		}
		if v := e.Visible; v != nil {
			t.InvoiceNumber, t.IssueDate, t.Total = pick(v.InvoiceNumber, t.InvoiceNumber), pick(v.IssueDate, t.IssueDate), pick(v.Total, t.Total)
			t.Vendor, t.Currency = pick(v.Vendor, t.Vendor), pick(v.Currency, t.Currency)
			t.Subtotal, t.Tax, t.DueDate = pick(v.Subtotal, t.Subtotal), pick(v.Tax, t.Tax), pick(v.DueDate, t.DueDate)
			t.VendorAliases = append(t.VendorAliases, v.VendorAliases...)
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		source := e.Source + " (hybrid)"
		if e.Origin != "" {
			source = e.Source + " (hybrid, " + e.Origin + ")"
		}
		docs = append(docs, document{source: source, file: rel, path: filepath.Join(root, rel), truth: t, origin: e.Origin})
	}
	return docs, nil
}

func pick(override, v string) string {
	if override != "" {
		return override
	}
	return v
}
