// Command demojson is the JSON half of scripts/demo.sh, so the demo needs
// nothing beyond Go, curl and POSIX tools (no jq, no fragile sed on JSON).
// It reads standard input and writes standard output:
//
//	demojson quote                    the input, verbatim, as one JSON string literal
//	demojson get PATH...              one line per PATH (a.b.c) of a JSON object:
//	                                  strings unquoted, other values as JSON, "" when absent or null
//	demojson count [FILTER]           how many of .items pass FILTER
//	demojson table [FILTER] COL...    .items (or the object itself) as aligned columns
//
// FILTER is -match S (keep items whose jobId contains S) and/or -where F=V
// (keep items whose field F prints as V).
//
// Printed values never span lines: a newline inside a string is shown as \n.
// demo.sh builds it once per run (go build), so each call costs milliseconds.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

const usage = "usage: demojson (quote | get PATHS | count [-match S] [-where F=V] | table [-match S] [-where F=V] COLUMNS)"

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demojson:", err)
		os.Exit(2)
	}
}

func run(args []string, in io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "quote":
		return quote(data, out)
	case "get":
		return get(data, rest, out)
	case "count", "table":
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		var f filter
		fs.StringVar(&f.match, "match", "", "keep only items whose jobId contains this")
		fs.StringVar(&f.where, "where", "", "keep only items whose field F prints as V (F=V)")
		if err := fs.Parse(rest); err != nil {
			return err
		}
		items, err := listItems(data, f)
		if err != nil {
			return err
		}
		if cmd == "count" {
			_, err = fmt.Fprintln(out, len(items))
			return err
		}
		return table(items, fs.Args(), out)
	}
	return errors.New(usage)
}

// quote writes data as a JSON string: quotes, backslashes, newlines, tabs
// and every other control character escaped. Input that is not UTF-8 is
// refused rather than silently altered (encoding/json would replace bytes).
func quote(data []byte, out io.Writer) error {
	if !utf8.Valid(data) {
		return errors.New("quote: input is not valid UTF-8")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(data)); err != nil {
		return err
	}
	_, err := out.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return err
}

func decodeObject(data []byte) (map[string]any, error) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	return v, nil
}

func get(data []byte, paths []string, out io.Writer) error {
	obj, err := decodeObject(data)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if _, err := fmt.Fprintln(out, format(lookup(obj, p))); err != nil {
			return err
		}
	}
	return nil
}

// lookup follows a dotted path through nested objects; nil when absent.
func lookup(obj map[string]any, path string) any {
	var v any = obj
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	return v
}

// format prints a value on one line: strings bare, null as "", the rest as
// compact JSON.
func format(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// filter selects list items: jobId containing match, and field=value when
// where is set.
type filter struct{ match, where string }

func (f filter) keep(item map[string]any) bool {
	if id, _ := item["jobId"].(string); !strings.Contains(id, f.match) {
		return false
	}
	if f.where == "" {
		return true
	}
	field, value, _ := strings.Cut(f.where, "=")
	return format(lookup(item, field)) == value
}

// listItems returns .items of a list answer, or the object itself as a
// one-item list, keeping those f selects.
func listItems(data []byte, f filter) ([]map[string]any, error) {
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	raw, isList := obj["items"].([]any)
	if !isList {
		raw = []any{obj}
	}
	var items []map[string]any
	for _, it := range raw {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, errors.New("items: not a list of objects")
		}
		if f.keep(m) {
			items = append(items, m)
		}
	}
	return items, nil
}

func table(items []map[string]any, cols []string, out io.Writer) error {
	if len(cols) == 0 {
		return errors.New("table: name at least one column")
	}
	if len(items) == 0 {
		_, err := fmt.Fprintln(out, "  (none)")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  "+strings.Join(cols, "\t"))
	for _, it := range items {
		row := make([]string, len(cols))
		for i, c := range cols {
			if row[i] = format(lookup(it, c)); row[i] == "" {
				row[i] = "-"
			}
		}
		fmt.Fprintln(tw, "  "+strings.Join(row, "\t"))
	}
	return tw.Flush()
}
