package supplier

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// The layout of a French supplier's invoice (rendered by a real invoice
// template): the issuer's block on the left prints its VAT id, IBAN and
// e-mail; the customer's block on the right prints the customer's VAT id
// with the same label.
const twoBlocks = `Atelier Lumière SARL                                                                                 Facture
14 rue des Verriers                                                                                                   N° de facture: F2024-087
69002 Lyon
                                                                                                                  Date de facture: 05/02/2024
France
N° TVA intracom. FR47812345674                                                       Hôtel des Célestins SAS
IBAN FR4930004008280001234567842
BIC BNPAFRPPLYO
compta@atelier-lumiere.example                                                       4 place des Célestins
                                                                                     69002 Lyon
                                                                                     France
                                                                                     N° TVA intracom. FR21504123987
`

func TestIdentify_TheIssuersBlockNotTheCustomers(t *testing.T) {
	t.Parallel()
	ids := Identify([]Page{twoBlocks}, Vendor{Name: "Atelier Lumière SARL", Page: 1, Line: 1})
	require.Equal(t, []extract.PartyID{
		{Scheme: extract.IDVAT, ID: "FR47812345674"},
		{Scheme: extract.IDIBAN, ID: "FR4930004008280001234567842"},
		{Scheme: extract.IDEmail, ID: "atelier-lumiere.example"},
	}, ids)

	ids = Identify([]Page{twoBlocks}, Vendor{})
	require.NotContains(t, ids, extract.PartyID{Scheme: extract.IDVAT, ID: "FR21504123987"})
	require.NotContains(t, ids, extract.PartyID{Scheme: extract.IDVAT, ID: "FR47812345674"},
		"without the issuer's place two VAT ids of one label cannot be told apart: neither is taken")
}

func TestIdentify_BuyerLabels(t *testing.T) {
	t.Parallel()
	page := "Müller Werkzeuge GmbH\nUSt-IdNr.: DE136695976\n\nRechnungsempfänger:\nBeispiel AG\nIhre USt-IdNr.: ATU13585627\nKunden-Nr. 4711\n" +
		"Bankverbindung: IBAN DE89 3704 0044 0532 0130 00\nAmtsgericht Köln HRB 12345\n"
	ids := Identify([]Page{page}, Vendor{Name: "Müller Werkzeuge GmbH", Page: 1, Line: 1})
	require.Contains(t, ids, extract.PartyID{Scheme: extract.IDVAT, ID: "DE136695976"})
	require.NotContains(t, ids, extract.PartyID{Scheme: extract.IDVAT, ID: "ATU13585627"}, "labelled the customer's")
	require.Contains(t, ids, extract.PartyID{Scheme: extract.IDIBAN, ID: "DE89370400440532013000"})
	require.Contains(t, ids, extract.PartyID{Scheme: extract.IDLegal, ID: "HR:HRB12345"})
}
