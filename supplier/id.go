package supplier

import (
	"regexp"
	"strconv"
	"strings"
)

// A supplier's public ID is "<tenant>:<scheme>:<hash>": its tenant and the
// strongest identifier the supplier is known by, hashed (the store's
// supplier ID). The API (/v1/suppliers/{supplierId}) and the console name
// a profile by it; both read it with ParsePublicID, so neither door takes a
// form the other refuses.

// publicIDRe is the shape of a public ID.
var publicIDRe = regexp.MustCompile(`^([a-z][a-z0-9-]{1,32}):((?:vat|tax|legal|gln|iban|email|name):[0-9a-f]{24})$`)

// PublicID is the public ID of a tenant's supplier.
func PublicID(tenant, supplier string) string { return tenant + ":" + supplier }

// ParsePublicID splits a public ID into its tenant and the store's
// supplier ID; false when id has not the shape of one.
func ParsePublicID(id string) (tenant, supplier string, ok bool) {
	m := publicIDRe.FindStringSubmatch(id)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// ParseRef splits a profile reference as evidence names it (Ref:
// "<supplier>@v<version>") into the supplier and the version; false when
// ref has not that shape.
func ParseRef(ref string) (supplier string, version int, ok bool) {
	i := strings.LastIndex(ref, "@v")
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(ref[i+2:])
	if err != nil || n < 1 || strconv.Itoa(n) != ref[i+2:] {
		return "", 0, false
	}
	return ref[:i], n, true
}
