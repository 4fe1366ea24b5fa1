package extract

import "strings"

// currencyMinor holds the active ISO 4217 currency codes used for trade,
// with their minor-unit digits (funds, metals and test codes are not
// accepted on an invoice).
var currencyMinor = func() map[string]int {
	m := map[string]int{}
	for _, c := range strings.Fields(`AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB
		BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP
		GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP
		LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB
		PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
		THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST XCD YER ZAR ZMW ZWG`) {
		m[c] = 2
	}
	for _, c := range strings.Fields(`BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF`) {
		m[c] = 0
	}
	for _, c := range strings.Fields(`BHD IQD JOD KWD LYD OMR TND`) {
		m[c] = 3
	}
	return m
}()

// MinorUnits returns the number of decimals of an ISO 4217 currency (2 for
// EUR, 0 for JPY, 3 for BHD) and whether the code is one relayops accepts.
func MinorUnits(code string) (int, bool) {
	n, ok := currencyMinor[code]
	return n, ok
}
