package supplier

import (
	"testing"
)

// BenchmarkRead reads a one-page invoice with a profile of every field.
func BenchmarkRead(b *testing.B) {
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	pages := []Page{holzwerk2}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Read(pages, "s@v1")
	}
}

// BenchmarkLearn learns a one-page invoice into a profile.
func BenchmarkLearn(b *testing.B) {
	p := Learn(nil, []Page{holzwerk1}, holzwerk1Values, learnedFrom("j1"))
	pages := []Page{holzwerk2}
	v := Values{InvoiceNumber: "RE-2024-0312", IssueDate: "2024-02-25", Currency: "EUR", Vendor: "Holzwerk Brandt GmbH",
		Subtotal: "1128.40", Tax: "214.40", Total: "1342.80"}
	b.ReportAllocs()
	for b.Loop() {
		_ = Learn(p, pages, v, learnedFrom("j2"))
	}
}
