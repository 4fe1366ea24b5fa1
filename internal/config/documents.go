package config

// Documents is document intake and the read stage.
type Documents struct {
	MaxFileBytes int64 // RELAYOPS_MAX_FILE_BYTES, default 10MiB (1KiB..100MiB)
	MaxPages     int   // RELAYOPS_MAX_PAGES, default 50 (1..1000)
	PDFInstances int   // RELAYOPS_PDF_INSTANCES, default 2 (1..64): PDFium instances a process keeps
}

func (l *loader) documents() Documents {
	d := Documents{
		MaxFileBytes: l.bytes("RELAYOPS_MAX_FILE_BYTES"),
		MaxPages:     l.intRange("RELAYOPS_MAX_PAGES", 1, 1000),
		PDFInstances: l.intRange("RELAYOPS_PDF_INSTANCES", 1, 64),
	}
	if !l.failed("RELAYOPS_MAX_FILE_BYTES") && (d.MaxFileBytes < 1<<10 || d.MaxFileBytes > 100<<20) {
		l.fail("RELAYOPS_MAX_FILE_BYTES", "must be from 1KiB to 100MiB, got %q", l.raw("RELAYOPS_MAX_FILE_BYTES"))
	}
	return d
}
