package rules

import "github.com/relayops/relayops/extract"

// french is the vocabulary of French (France, Belgium, Switzerland, Canada).
var french = language{
	code: "fr",
	labels: map[labelKind]string{
		lkInvoiceNo:   `avoir no|no d avoir|no avoir|numero d avoir|numero avoir|no de l avoir|facture no|numero de facture|no de facture|no facture|numero facture|no de la facture|ref facture`,
		lkVendor:      `fournisseur|vendeur|emetteur|prestataire`,
		lkCustomer:    `client|acheteur|destinataire|adresse de facturation|adresse de livraison|facturer a|livrer a`,
		lkIssueDate:   `date de facture|date facture|date d emission|date de la facture|date|emise le`,
		lkDueDate:     `echeance|date d echeance|date limite de paiement|a payer avant le|payable le`,
		lkOtherDate:   `date de livraison|date de commande|periode|date de prestation`,
		lkCurrency:    `devise`,
		lkSubtotal:    `total ht|montant ht|sous total|total hors taxes|montant hors taxes|total net ht|net a payer ht|base ht|total ht net`,
		lkTax:         `tva|total tva|montant tva|montant de la tva|taxe`,
		lkTaxIncluded: `dont tva|tva incluse`,
		lkTotal:       `total avoir|montant de l avoir|total de l avoir|total ttc|montant total|total a payer|montant ttc|total general|montant total ttc|total toutes taxes comprises|net a payer ttc`,
		lkAmountDue:   `net a payer|reste a payer|montant du|solde du|a payer|montant a payer`,
		lkPaid:        `acompte|deja paye|acompte verse|montant paye|paiement recu`,
		lkShipping:    `frais de port|livraison|frais de livraison|transport`,
		lkDiscount:    `remise|escompte|rabais`,
		lkOtherRef:    `siret|siren|no tva|no de tva|tva intracommunautaire|no tva intracommunautaire|rcs|ape|naf|iban|bic|ref|reference|votre reference|commande|bon de commande|no de commande|conditions de paiement|page|tel|quantite|qte|unite|designation|description|prix unitaire`,
	},
	titles:        []docKeyword{{"avoir", extract.DocCreditNote}, {"note de crédit", extract.DocCreditNote}, {"facture d'avoir", extract.DocCreditNote}, {"facture rectificative", extract.DocCorrectiveInvoice}, {"facture corrective", extract.DocCorrectiveInvoice}, {"reçu", extract.DocReceipt}, {"bon de commande", extract.DocPurchaseOrder}, {"devis", extract.DocQuote}, {"relevé de compte", extract.DocStatement}, {"bon de livraison", extract.DocOther}, {"confirmation de commande", extract.DocOther}, {"avis de paiement", extract.DocOther}, {"relance", extract.DocOther}},
	invoiceTitles: []docKeyword{{"facture", extract.DocInvoice}},
	compounds:     []docKeyword{},
	markers:       []docKeyword{{"rendu monnaie", extract.DocReceipt}, {"solde précédent", extract.DocStatement}, {"nouveau solde", extract.DocStatement}, {"devis valable", extract.DocQuote}, {"offre valable", extract.DocQuote}},
	preceding:     "facture liee|facture d origine|facture origine|facture initiale|sur la facture|sur facture|relatif a la facture|relative a la facture|se rapportant a la facture|facture rectifiee|facture annulee|annule la facture|rectifie la facture|en reference a la facture",
	references:    "votre|vos|notre|nos|selon|suivant|suite a|conformement a",
	dueBy:         "d'ici le|d’ici le|avant le|au plus tard le|jusqu'au|jusqu’au",
	payWords:      "régler|regler|paiement|payer|virement|réglement|règlement",
	taxTotals:     "total tva|montant tva|montant de la tva",
	months:        [12]string{"janvier janv", "février fevrier févr fevr", "mars", "avril avr", "mai", "juin", "juillet juil", "août aout", "septembre sept", "octobre oct", "novembre nov", "décembre decembre déc dec"},
}
