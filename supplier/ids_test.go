package supplier

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalizeVAT_FormatsAndCheckDigits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"DE 136 695 976", "DE136695976"},
		{"de136695976", "DE136695976"},
		{"DE136695977", ""}, // check digit
		{"ATU13585627", "ATU13585627"},
		{"ATU13585626", ""},
		{"BE 0411.905.847", "BE0411905847"},
		{"BE0411905848", ""},
		{"IT 00743110157", "IT00743110157"},
		{"IT00743110158", ""},
		{"NL004495445B01", "NL004495445B01"},
		{"PL 526-104-08-28", "PL5261040828"},
		{"PL5261040829", ""},
		{"FR47812345674", "FR47812345674"},
		{"GB 123 4567 89", "GB123456789"},
		{"CHE-112.203.184 MWST", "CHE112203184"},
		{"GR 094014201", "EL094014201"},
		{"XX123456789", ""},
		{"DE12345", ""},
	} {
		require.Equal(t, tt.want, NormalizeVAT(tt.in), tt.in)
	}
}

func TestNormalizeIBAN_LengthAndMod97(t *testing.T) {
	t.Parallel()
	require.Equal(t, "DE89370400440532013000", NormalizeIBAN("DE89 3704 0044 0532 0130 00"))
	require.Equal(t, "FR1420041010050500013M02606", NormalizeIBAN("fr14 2004 1010 0505 0001 3M02 606"))
	require.Empty(t, NormalizeIBAN("DE89 3704 0044 0532 0130 01"), "check digits")
	require.Empty(t, NormalizeIBAN("DE89 3704 0044 0532 0130"), "length of its country")
}

func TestNormalizeGLNEmailName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "4000001000005", NormalizeGLN("4000001000005"))
	require.Empty(t, NormalizeGLN("4000001000006"))
	require.Equal(t, "acme.example", NormalizeEmail("Billing@ACME.example"))
	require.Equal(t, "jane.doe@gmail.com", NormalizeEmail("jane.doe@gmail.com"), "a free-mail address is its owner's, not its domain's")
	require.Empty(t, NormalizeEmail("not an address"))
	require.Equal(t, "acme supplies", NormalizeName("ACME Supplies GmbH & Co. KG"))
	require.Equal(t, NormalizeName("Müller GmbH"), NormalizeName("MÜLLER"))
}

func TestNormalizeNumber_OneNumberHoweverWritten(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"INV-0046", "inv 0046", "INV/0046", " INV_0046"} {
		require.Equal(t, "INV0046", NormalizeNumber(s), s)
	}
	require.Equal(t, "123", NormalizeNumber("No. 000123"[4:]))
	require.Equal(t, "FV12021", NormalizeNumber("FV 1/2021"))
}
