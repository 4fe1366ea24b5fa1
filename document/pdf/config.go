package pdf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Config configures a Reader. The zero value is usable: every field has a
// default, applied by withDefaults.
type Config struct {
	// MaxPages is the most pages a document may have; more is
	// ErrTooManyPages. Default 50.
	MaxPages int
	// Instances is the number of PDFium instances working at once; further
	// calls wait for a free one (bounded by their context). Default 2.
	Instances int
	// CacheDir holds wazero's compilation cache, so a process after the first
	// starts in a fraction of a second instead of compiling PDFium again.
	// Default os.UserCacheDir()/relayops/wazero, else a directory under
	// os.TempDir(). The wasm module itself never sees any file system.
	CacheDir string
	// DocumentTimeout bounds one call (Read, PageCount, Render) on one
	// document, below the caller's own deadline: a document that takes
	// longer is ErrUnreadable (permanent), and its instance is discarded.
	// Default 30s.
	DocumentTimeout time.Duration
	// MaxMemoryBytes bounds one instance's WebAssembly memory; a document
	// that needs more (a decompression bomb) fails as ErrUnreadable and its
	// instance is discarded. Default 256 MiB. Rounded down to 64 KiB pages.
	MaxMemoryBytes int64
	// MaxAttachmentBytes is the largest embedded file kept; a larger one is
	// left out of File.Attachments. Default 4 MiB.
	MaxAttachmentBytes int
	// MaxAttachments is the most embedded files read from one document.
	// Default 16.
	MaxAttachments int
	// RecycleDocuments is how many documents an instance reads before it is
	// replaced (WebAssembly memory never shrinks). Default 64.
	RecycleDocuments int
	// RecycleBytes is how many input bytes an instance reads before it is
	// replaced. Default 64 MiB.
	RecycleBytes int64
	// MaxRenderPixels is Render's pixel budget when the call passes 0.
	// Default 2,500,000.
	MaxRenderPixels int
}

const (
	defaultMaxPages           = 50
	defaultInstances          = 2
	defaultDocumentTimeout    = 30 * time.Second
	defaultMaxMemoryBytes     = 256 << 20
	defaultMaxAttachmentBytes = 4 << 20
	defaultMaxAttachments     = 16
	defaultRecycleDocuments   = 64
	defaultRecycleBytes       = 64 << 20
	defaultMaxRenderPixels    = 2_500_000

	wasmPageBytes = 64 << 10
	// minMemoryBytes is what PDFium needs to start at all (its initial
	// memory is 16 MiB) plus room to open a small document.
	minMemoryBytes = 32 << 20
	// maxRenderPixelsCap keeps a caller's budget within what one instance's
	// memory can hold as RGBA.
	maxRenderPixelsCap = 16_000_000
)

func (c Config) withDefaults() Config {
	if c.MaxPages == 0 {
		c.MaxPages = defaultMaxPages
	}
	if c.Instances == 0 {
		c.Instances = defaultInstances
	}
	if c.CacheDir == "" {
		c.CacheDir = defaultCacheDir()
	}
	if c.DocumentTimeout == 0 {
		c.DocumentTimeout = defaultDocumentTimeout
	}
	if c.MaxMemoryBytes == 0 {
		c.MaxMemoryBytes = defaultMaxMemoryBytes
	}
	if c.MaxAttachmentBytes == 0 {
		c.MaxAttachmentBytes = defaultMaxAttachmentBytes
	}
	if c.MaxAttachments == 0 {
		c.MaxAttachments = defaultMaxAttachments
	}
	if c.RecycleDocuments == 0 {
		c.RecycleDocuments = defaultRecycleDocuments
	}
	if c.RecycleBytes == 0 {
		c.RecycleBytes = defaultRecycleBytes
	}
	if c.MaxRenderPixels == 0 {
		c.MaxRenderPixels = defaultMaxRenderPixels
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	check := func(ok bool, field, rule string) {
		if !ok {
			errs = append(errs, fmt.Errorf("pdf: config %s %s", field, rule))
		}
	}
	check(c.MaxPages > 0, "MaxPages", "must be positive")
	check(c.Instances > 0 && c.Instances <= 64, "Instances", "must be 1..64")
	check(c.DocumentTimeout > 0, "DocumentTimeout", "must be positive")
	check(c.MaxMemoryBytes >= minMemoryBytes && c.MaxMemoryBytes <= 4<<30, "MaxMemoryBytes", "must be 32 MiB..4 GiB")
	check(c.MaxAttachmentBytes > 0, "MaxAttachmentBytes", "must be positive")
	check(c.MaxAttachments > 0, "MaxAttachments", "must be positive")
	check(c.RecycleDocuments > 0, "RecycleDocuments", "must be positive")
	check(c.RecycleBytes > 0, "RecycleBytes", "must be positive")
	check(c.MaxRenderPixels > 0 && c.MaxRenderPixels <= maxRenderPixelsCap, "MaxRenderPixels", "must be 1..16000000")
	check(filepath.IsAbs(c.CacheDir), "CacheDir", "must be an absolute path")
	return errors.Join(errs...)
}

func defaultCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil && filepath.IsAbs(dir) {
		return filepath.Join(dir, "relayops", "wazero")
	}
	return filepath.Join(os.TempDir(), "relayops-wazero")
}
