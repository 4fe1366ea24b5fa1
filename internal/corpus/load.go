package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// handFile is the ground-truth file beside a hand-written document: its
// layout (a name for the report) and its truth.
type handFile struct {
	Layout string `json:"layout"`
	Truth
}

// Load reads the hand-written documents of dir: every NAME.txt with its
// ground truth in NAME.json. The document's ID is "hand-NAME". A .txt
// without its .json, a .json without its .txt, a truth that fails Check or
// a layout missing is an error naming the file.
func Load(dir string) ([]Document, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	names := map[string]int{} // 1: .txt, 2: .json
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		switch ext := filepath.Ext(e.Name()); ext {
		case ".txt":
			names[strings.TrimSuffix(e.Name(), ext)] |= 1
		case ".json":
			names[strings.TrimSuffix(e.Name(), ext)] |= 2
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var docs []Document
	var errs []error
	for _, name := range keys {
		if names[name] != 3 {
			errs = append(errs, fmt.Errorf("corpus: %s: needs both %s.txt and %s.json", filepath.Join(dir, name), name, name))
			continue
		}
		d, err := loadOne(dir, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, d)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return docs, nil
}

func loadOne(dir, name string) (Document, error) {
	text, err := os.ReadFile(filepath.Join(dir, name+".txt"))
	if err != nil {
		return Document{}, fmt.Errorf("corpus: %w", err)
	}
	path := filepath.Join(dir, name+".json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return Document{}, fmt.Errorf("corpus: %w", err)
	}
	var hf handFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hf); err != nil {
		return Document{}, fmt.Errorf("corpus: %s: %w", path, err)
	}
	if hf.Layout == "" {
		return Document{}, fmt.Errorf("corpus: %s: layout: missing", path)
	}
	if err := hf.Truth.Check(); err != nil {
		return Document{}, fmt.Errorf("corpus: %s: %w", path, err)
	}
	return Document{ID: "hand-" + name, Layout: hf.Layout, Text: string(text), Truth: hf.Truth}, nil
}
