package einvoice

import (
	"os"
	"path/filepath"
	"testing"
)

// Parse and Check never panic, whatever the bytes; Sniff agrees with Parse
// on what is an e-invoice.
func FuzzParse(f *testing.F) {
	for _, rel := range []string{
		"en16931/ubl/ubl-tc434-example1.xml", "en16931/ubl/ubl-tc434-creditnote1.xml",
		"horstoeko/xml_en16931_1.xml", "mustang/validator/validV1.xml", "mustang/library/cii/facturFrMinimum.xml",
	} {
		data, err := os.ReadFile(filepath.Join(corpusDir, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<!DOCTYPE a [<!ENTITY b "c">]><a>&b;</a>`))
	f.Add([]byte(ublOpen + `<cbc:ID>1</cbc:ID><cac:InvoiceLine><cbc:LineExtensionAmount>x</cbc:LineExtensionAmount></cac:InvoiceLine></Invoice>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := Parse(data)
		syntax, ok := Sniff(data)
		if err != nil {
			return
		}
		if !ok || syntax != inv.Syntax {
			t.Fatalf("Parse read %s, Sniff said %q %v", inv.Syntax, syntax, ok)
		}
		inv.Check()
	})
}
