package main

import (
	"fmt"
	"math/big"
	"strings"
)

// iban builds an IBAN with valid check digits (ISO 13616, mod 97) from a
// country code and a basic bank account number.
func iban(country, bban string) string {
	var digits strings.Builder
	for _, r := range bban + country + "00" {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			fmt.Fprint(&digits, int(r-'A')+10)
		}
	}
	n, _ := new(big.Int).SetString(digits.String(), 10)
	check := 98 - new(big.Int).Mod(n, big.NewInt(97)).Int64()
	return fmt.Sprintf("%s%02d%s", country, check, bban)
}
