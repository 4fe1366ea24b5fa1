package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// amountRe finds printed amounts: an optional minus (a currency sign may
// stand between it and the digits), digits with optional grouping, and two
// decimals after a point or a comma.
var amountRe = regexp.MustCompile(`([-−]\s?(?:[€$£]|zł|EUR|USD|GBP|AUD|PLN)?\s?)?\b(\d{1,3}(?:[.,' \x{a0}\x{202f}]\d{3})*|\d+)[.,](\d{2})\b`)

// checkRendered compares the text of every rendered PDF with its truth.
func checkRendered(root string) error {
	truths, err := filepath.Glob(filepath.Join(root, "testdata", "real", "rendered-*", "*.json"))
	if err != nil {
		return err
	}
	var errs []error
	for _, tf := range truths {
		pdf := strings.TrimSuffix(tf, ".json") + ".pdf"
		check := checkOne
		if _, err := os.Stat(pdf); err != nil {
			pdf, check = strings.TrimSuffix(tf, ".json")+".xml", checkXML
		}
		if err := check(tf, pdf); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Base(pdf), err))
		}
	}
	fmt.Printf("checked %d rendered documents, %d with a problem\n", len(truths), len(errs))
	return errors.Join(errs...)
}

func checkOne(truthPath, pdf string) error {
	t, err := readTruth(truthPath)
	if err != nil {
		return err
	}
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", pdf, "-").Output()
	if err != nil {
		return fmt.Errorf("pdftotext: %w", err)
	}
	text := string(out)
	flat := strings.Join(strings.Fields(text), " ")
	l := languages[t.Language]
	if t.Country == "US" {
		l.dateLayout = "01/02/2006" // as suppliers.go gives the US suppliers
	}
	var errs []error
	need := func(what, v string) {
		if !strings.Contains(flat, v) {
			errs = append(errs, fmt.Errorf("%s %q is not printed", what, v))
		}
	}
	need("number", t.InvoiceNumber)
	need("vendor", t.Vendor)
	need("issue date", dateText(l, t.IssueDate, flat))
	if t.DueDate != "" {
		need("due date", dateText(l, t.DueDate, flat))
	}
	printed := amounts(text)
	for _, a := range []struct{ what, v string }{{"subtotal", t.Subtotal}, {"tax", t.Tax}, {"total", t.Total}} {
		if a.what == "tax" && a.v == "0.00" {
			continue
		}
		if a.what == "subtotal" && strings.Contains(pdf, "rendered-pdf-invoice") {
			// the template prints no net sum: its "Subtotal" row is the
			// lines with their tax; the net sum is the lines' price x qty
			continue
		}
		if !printed[a.v] {
			errs = append(errs, fmt.Errorf("%s %s is not printed (amounts on the page: %v)", a.what, a.v, keys(printed)))
		}
	}
	if t.DuplicateOf != "" {
		first, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", filepath.Join(filepath.Dir(pdf), t.DuplicateOf), "-").Output()
		if err != nil || string(first) != text {
			errs = append(errs, fmt.Errorf("its text is not that of %s", t.DuplicateOf))
		}
	}
	return errors.Join(errs...)
}

// checkXML compares a CII XML copy (a duplicate of a PDF) with its truth:
// the number, the issue date and the header's subtotal, tax and total it
// states, and the first copy's truth must be the same.
func checkXML(truthPath, xmlPath string) error {
	t, err := readTruth(truthPath)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(xmlPath)
	if err != nil {
		return err
	}
	x := string(b)
	var errs []error
	for what, el := range map[string]string{
		"number":   "<ram:ID>" + t.InvoiceNumber + "</ram:ID>",
		"date":     strings.ReplaceAll(t.IssueDate, "-", "") + "</udt:DateTimeString>",
		"subtotal": "<ram:LineTotalAmount>" + t.Subtotal + "</ram:LineTotalAmount>",
		"tax":      ">" + t.Tax + "</ram:TaxTotalAmount>",
		"total":    "<ram:GrandTotalAmount>" + t.Total + "</ram:GrandTotalAmount>",
	} {
		if !strings.Contains(x, el) {
			errs = append(errs, fmt.Errorf("the XML does not state the %s (%s)", what, el))
		}
	}
	first, err := readTruth(filepath.Join(filepath.Dir(truthPath), strings.TrimSuffix(t.DuplicateOf, ".pdf")+".json"))
	if err != nil {
		return err
	}
	if first.InvoiceNumber != t.InvoiceNumber || first.Total != t.Total {
		errs = append(errs, fmt.Errorf("not the same invoice as %s", t.DuplicateOf))
	}
	return errors.Join(errs...)
}

func readTruth(path string) (truthFile, error) {
	var t truthFile
	b, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	return t, json.Unmarshal(b, &t)
}

// dateText is the date as the page may print it: the language's form, or
// ISO when the page prints that.
func dateText(l labels, iso, text string) string {
	d, err := time.Parse(time.DateOnly, iso)
	if err != nil || strings.Contains(text, iso) {
		return iso
	}
	return l.date(d)
}

// amounts returns every amount printed, as canonical decimals ("-8.79").
func amounts(text string) map[string]bool {
	set := map[string]bool{}
	for _, m := range amountRe.FindAllStringSubmatch(text, -1) {
		whole := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, m[2])
		whole = strings.TrimLeft(whole, "0")
		if whole == "" {
			whole = "0"
		}
		v := whole + "." + m[3]
		if m[1] != "" {
			v = "-" + v
		}
		set[v] = true
	}
	return set
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
