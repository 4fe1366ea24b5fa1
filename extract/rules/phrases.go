package rules

import "strings"

// phraseSet finds which of a list of phrases occurs first, as whole words,
// in a text: one pass over the text, trying at each word start only the
// phrases that begin with its byte, instead of one search of the whole
// text per phrase (the classifier looks for some 40 markers in every
// document and 60 keywords in every title candidate).
type phraseSet struct {
	phrases []string
	// byFirst lists, for each byte, the indexes of the phrases that start
	// with it, in the order of phrases.
	byFirst [256][]int
}

func newPhraseSet(phrases []string) *phraseSet {
	ps := &phraseSet{phrases: phrases}
	for i, p := range phrases {
		if p == "" {
			panic("extract: empty phrase")
		}
		ps.byFirst[p[0]] = append(ps.byFirst[p[0]], i)
	}
	return ps
}

// first returns the earliest position in s where a phrase occurs as whole
// words, by the rule of wordIndex (not at 0, no letter just before or
// after), and the index of the first phrase of the list found there; -1
// and -1 when none occurs. It is, for the phrase it names, the smallest
// wordIndex of all the phrases, ties going to the phrase listed first.
func (ps *phraseSet) first(s string) (at, which int) {
	for j := 1; j < len(s); j++ {
		if isLetterByte(s[j-1]) {
			continue
		}
		for _, k := range ps.byFirst[s[j]] {
			p := ps.phrases[k]
			if strings.HasPrefix(s[j:], p) && (j+len(p) >= len(s) || !isLetterByte(s[j+len(p)])) {
				return j, k
			}
		}
	}
	return -1, -1
}
