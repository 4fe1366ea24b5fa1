package rules

import "github.com/relayops/relayops/extract"

// ClassifyText is the rules classifier's verdict on content, with the
// signals that decided it (content-free names: "title_receipt",
// "invoice_number_label", "total_label", "marker_statement", "empty", …).
// The console explains a not_an_invoice rejection with it.
func ClassifyText(content string) extract.Classification { return classifyContent(content) }
