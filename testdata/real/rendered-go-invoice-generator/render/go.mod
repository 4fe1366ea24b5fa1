module relayops.test/rendered-go-invoice-generator

go 1.22

require github.com/angelodlfrtr/go-invoice-generator v0.6.0

require (
	github.com/cockroachdb/apd v1.1.0 // indirect
	github.com/creasty/defaults v1.6.0 // indirect
	github.com/go-pdf/fpdf v0.6.0 // indirect
	github.com/go-playground/locales v0.14.0 // indirect
	github.com/go-playground/universal-translator v0.18.0 // indirect
	github.com/go-playground/validator/v10 v10.11.0 // indirect
	github.com/leekchan/accounting v0.3.1 // indirect
	github.com/leodido/go-urn v1.2.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/shopspring/decimal v1.3.1 // indirect
	golang.org/x/crypto v0.0.0-20211215153901-e495a2d5b3d3 // indirect
	golang.org/x/sys v0.0.0-20210806184541-e5e7981a1069 // indirect
	golang.org/x/text v0.3.7 // indirect
)
