package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"

	readstage "github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/pdf"
)

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
