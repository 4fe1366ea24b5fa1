package ocr

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// Word is one word tesseract read, with its box in image pixels.
type Word struct {
	Text                     string
	Left, Top, Width, Height int
	// Confidence is tesseract's, 0–100.
	Confidence float64
	// Line is the word's line in Page.Text (0-based); Offset is the byte
	// offset of the word in Page.Text.
	Line, Offset int

	unit int // tesseract's (block, paragraph, line) the word belongs to
}

// tsvWordLevel is the TSV "level" of a word row (1 page … 5 word).
const tsvWordLevel = 5

// parseTSV reads tesseract's TSV output: a header, then rows of level,
// page_num, block_num, par_num, line_num, word_num, left, top, width,
// height, conf, text. It keeps the words that have text, in tesseract's
// reading order, numbering the lines they belong to.
func parseTSV(tsv []byte) ([]Word, error) {
	sc := bufio.NewScanner(bytes.NewReader(tsv))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "level\t") {
		return nil, ErrFailed
	}
	var words []Word
	unit, lastKey := -1, ""
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 12)
		if len(f) != 12 {
			continue
		}
		n, ok := ints(f[:10])
		if !ok || n[0] != tsvWordLevel {
			continue
		}
		text := strings.TrimSpace(f[11])
		conf, err := strconv.ParseFloat(f[10], 64)
		if text == "" || err != nil || conf < 0 {
			continue
		}
		if key := f[1] + "." + f[2] + "." + f[3] + "." + f[4]; key != lastKey {
			unit, lastKey = unit+1, key
		}
		words = append(words, Word{
			Text: text, Left: n[6], Top: n[7], Width: n[8], Height: n[9],
			Confidence: conf, unit: unit,
		})
	}
	if sc.Err() != nil {
		return nil, ErrFailed
	}
	return words, nil
}

func ints(fs []string) ([]int, bool) {
	n := make([]int, len(fs))
	for i, f := range fs {
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		n[i] = v
	}
	return n, true
}
