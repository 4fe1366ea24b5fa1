package config

import (
	"regexp"
	"time"
)

// Documents is document intake and the read stage.
type Documents struct {
	MaxFileBytes int64 // RELAYOPS_MAX_FILE_BYTES, default 10MiB (1KiB..100MiB)
	MaxPages     int   // RELAYOPS_MAX_PAGES, default 50 (1..1000)
	PDFInstances int   // RELAYOPS_PDF_INSTANCES, default 2 (1..64): PDFium instances a process keeps
	ReadMemory   int64 // RELAYOPS_READ_MEMORY, default 1GiB (256MiB..1TiB): the read stage's memory budget per process
	OCR          OCR
}

// OCR is the tesseract command that reads scans (RELAYOPS_OCR_*).
type OCR struct {
	Command       string        // RELAYOPS_OCR_COMMAND, default tesseract (a name on the PATH or a path)
	Languages     string        // RELAYOPS_OCR_LANGUAGES, default eng+deu+fra+nld+spa+ita
	PageTimeout   time.Duration // RELAYOPS_OCR_PAGE_TIMEOUT, default 60s (>= 1s)
	MinConfidence int           // RELAYOPS_OCR_MIN_CONFIDENCE, default 60 (0..100)
	MaxPages      int           // RELAYOPS_OCR_MAX_PAGES, default 10 (1..1000): pages of a scan OCR reads
}

var ocrLanguagesRE = regexp.MustCompile(`^[a-z_]{3,16}(\+[a-z_]{3,16})*$`)

func (l *loader) documents() Documents {
	d := Documents{
		MaxFileBytes: l.bytes("RELAYOPS_MAX_FILE_BYTES"),
		MaxPages:     l.intRange("RELAYOPS_MAX_PAGES", 1, 1000),
		PDFInstances: l.intRange("RELAYOPS_PDF_INSTANCES", 1, 64),
		ReadMemory:   l.bytes("RELAYOPS_READ_MEMORY"),
		OCR: OCR{
			Command:       l.raw("RELAYOPS_OCR_COMMAND"),
			Languages:     l.raw("RELAYOPS_OCR_LANGUAGES"),
			PageTimeout:   l.duration("RELAYOPS_OCR_PAGE_TIMEOUT", atLeast(time.Second), "a duration of at least 1s"),
			MinConfidence: l.intRange("RELAYOPS_OCR_MIN_CONFIDENCE", 0, 100),
			MaxPages:      l.intRange("RELAYOPS_OCR_MAX_PAGES", 1, 1000),
		},
	}
	if !ocrLanguagesRE.MatchString(d.OCR.Languages) {
		l.fail("RELAYOPS_OCR_LANGUAGES", "must be tesseract language codes joined by + (e.g. eng+deu), got %q", d.OCR.Languages)
	}
	if !l.failed("RELAYOPS_MAX_FILE_BYTES") && (d.MaxFileBytes < 1<<10 || d.MaxFileBytes > 100<<20) {
		l.fail("RELAYOPS_MAX_FILE_BYTES", "must be from 1KiB to 100MiB, got %q", l.raw("RELAYOPS_MAX_FILE_BYTES"))
	}
	if !l.failed("RELAYOPS_READ_MEMORY") && (d.ReadMemory < 256<<20 || d.ReadMemory > 1<<40) {
		l.fail("RELAYOPS_READ_MEMORY", "must be from 256MiB to 1TiB, got %q", l.raw("RELAYOPS_READ_MEMORY"))
	}
	return d
}
