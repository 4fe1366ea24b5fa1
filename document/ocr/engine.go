// Package ocr reads page images with the tesseract command: each page runs
// as a subprocess, without a shell, bounded in time and memory, in a private
// temporary directory that is always removed. Tesseract's TSV output (words
// with their boxes and confidences) is rebuilt into layout text the way
// `pdftotext -layout` shows a page (rows in order, columns kept apart by runs
// of spaces), so the rules read a scan like a PDF's text.
//
// Image intake (Open) checks PNG, JPEG and TIFF files from their headers
// before anything is decoded, says what decoding each page will cost, and
// decodes a page once, to gray at the resolution OCR needs (Image.Gray).
package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// DefaultLanguages are the languages asked for when Config.Languages is
// empty, reduced to those installed.
const DefaultLanguages = "eng+deu+fra+nld+spa+ita"

// InstallAdvice says how to install tesseract on Debian or Ubuntu.
const InstallAdvice = "install it with: apt-get install tesseract-ocr tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-nld tesseract-ocr-spa tesseract-ocr-ita"

var (
	// ErrNotInstalled: the OCR command is not on the PATH (or not where
	// Config.Command says), or no requested language is installed.
	ErrNotInstalled = errors.New("ocr: tesseract is not installed; " + InstallAdvice)
	// ErrTimeout: one page took longer than Config.PageTimeout; its process
	// group was killed.
	ErrTimeout = errors.New("ocr: page took longer than the page timeout")
	// ErrFailed: the command failed on a page (an exit status, a signal
	// such as the memory bound's, or output that is not TSV).
	ErrFailed = errors.New("ocr: the OCR command failed")
)

// Config configures an Engine.
type Config struct {
	// Command is the tesseract executable, a name looked up on the PATH or
	// a path. Default "tesseract".
	Command string
	// Languages are tesseract language codes joined by "+". Default
	// DefaultLanguages; only those installed (tesseract --list-langs) are
	// used, in the order given.
	Languages string
	// PageTimeout bounds one page (besides the caller's context). Default
	// 60s.
	PageTimeout time.Duration
	// MaxMemoryBytes bounds the address space of the process per page
	// (RLIMIT_AS). Default 1 GiB; negative means no bound.
	MaxMemoryBytes int64
	// MinConfidence (0–100): words tesseract is less sure of are marked in
	// Page.LowConfidence. Default 60.
	MinConfidence float64
	// TempDir is where each page's private directory is made. Default
	// os.TempDir().
	TempDir string
}

func (c Config) withDefaults() Config {
	if c.Command == "" {
		c.Command = "tesseract"
	}
	if c.Languages == "" {
		c.Languages = DefaultLanguages
	}
	if c.PageTimeout == 0 {
		c.PageTimeout = time.Minute
	}
	if c.MaxMemoryBytes == 0 {
		c.MaxMemoryBytes = 1 << 30
	}
	if c.MinConfidence == 0 {
		c.MinConfidence = 60
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.PageTimeout < 0 {
		errs = append(errs, errors.New("ocr: Config.PageTimeout must not be negative"))
	}
	if c.MinConfidence < 0 || c.MinConfidence > 100 {
		errs = append(errs, errors.New("ocr: Config.MinConfidence must be between 0 and 100"))
	}
	for _, l := range strings.Split(c.Languages, "+") {
		if !validLanguage(l) {
			errs = append(errs, errors.New("ocr: Config.Languages must be language codes joined by +"))
			break
		}
	}
	return errors.Join(errs...)
}

// validLanguage: tesseract's traineddata names (eng, chi_sim, …); nothing
// that could read as an option.
func validLanguage(l string) bool {
	if l == "" || len(l) > 32 {
		return false
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Engine runs tesseract on page images. It is safe for concurrent use; each
// Page is one process.
type Engine struct {
	cfg       Config
	command   string // resolved path
	languages string // installed subset of cfg.Languages
	prlimit   string // resolved path of prlimit, "" when absent or unbounded
}

// New resolves the command and its installed languages. A missing command,
// or one with none of the languages, is ErrNotInstalled.
func New(cfg Config) (*Engine, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	path, err := exec.LookPath(cfg.Command)
	if err != nil {
		return nil, ErrNotInstalled
	}
	e := &Engine{cfg: cfg, command: path}
	installed, err := e.listLanguages()
	if err != nil {
		return nil, err
	}
	var use []string
	for _, l := range strings.Split(cfg.Languages, "+") {
		if slices.Contains(installed, l) && !slices.Contains(use, l) {
			use = append(use, l)
		}
	}
	if len(use) == 0 {
		return nil, fmt.Errorf("%w (none of the languages %s)", ErrNotInstalled, cfg.Languages)
	}
	e.languages = strings.Join(use, "+")
	if cfg.MaxMemoryBytes > 0 {
		e.prlimit, _ = exec.LookPath("prlimit")
	}
	return e, nil
}

// Languages are the languages in use, joined by "+".
func (e *Engine) Languages() string { return e.languages }

// listLanguages runs `tesseract --list-langs`, which prints a header line
// and then one language per line.
func (e *Engine) listLanguages() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := e.run(ctx, "", false, "--list-langs")
	if err != nil {
		return nil, fmt.Errorf("ocr: %s --list-langs: %w", e.cfg.Command, err)
	}
	var langs []string
	sc := bufio.NewScanner(bytes.NewReader(res.stdout))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if validLanguage(l) {
			langs = append(langs, l)
		}
	}
	return langs, nil
}

// Page reads one page image file (PNG, JPEG, or a TIFF's first page),
// checked as Open checks it and decoded to gray at PagePixels. The caller's
// ctx and Config.PageTimeout bound it; at either the process group is
// killed.
func (e *Engine) Page(ctx context.Context, img []byte) (*Page, error) {
	im, err := Open(img, Sniff(img), 0)
	if err != nil {
		return nil, err
	}
	g, err := im.Gray(0, PagePixels)
	if err != nil {
		return nil, err
	}
	return e.Gray(ctx, g)
}

// Gray reads one page given as 8-bit gray: it is written to tesseract as a
// PGM file (no compression to pay for), in a private temporary directory.
// The caller's ctx and Config.PageTimeout bound it; at either the process
// group is killed.
func (e *Engine) Gray(ctx context.Context, g *image.Gray) (*Page, error) {
	if err := checkSize(g.Rect.Dx(), g.Rect.Dy()); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(e.cfg.TempDir, "relayops-ocr-*")
	if err != nil {
		return nil, fmt.Errorf("ocr: temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	in := dir + "/page.pgm"
	if err := writePGM(in, g); err != nil {
		return nil, fmt.Errorf("ocr: write page: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, e.cfg.PageTimeout)
	defer cancel()
	// "--psm 3": automatic page segmentation, the default, stated so a
	// deployment's config file cannot change it; "tsv" is the output format.
	res, err := e.run(pctx, dir, true, in, dir+"/out", "-l", e.languages, "--psm", "3", "tsv")
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("ocr: page: %w", ctx.Err())
		case pctx.Err() != nil:
			return nil, ErrTimeout
		}
		return nil, err
	}
	tsv, err := readBounded(dir+"/out.tsv", maxTSVBytes)
	if err != nil {
		return nil, err
	}
	words, err := parseTSV(tsv)
	if err != nil {
		return nil, err
	}
	p := layout(words, e.cfg.MinConfidence)
	p.Elapsed, p.CPUTime = res.wall, res.cpu
	return p, nil
}

// writePGM writes g as a binary PGM (P5), which tesseract reads as it is.
func writePGM(path string, g *image.Gray) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	fmt.Fprintf(w, "P5\n%d %d\n255\n", g.Rect.Dx(), g.Rect.Dy())
	for y := range g.Rect.Dy() {
		if _, err := w.Write(g.Pix[y*g.Stride : y*g.Stride+g.Rect.Dx()]); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ProcessBytes estimates the memory one tesseract process holds while it
// reads a w × h gray page, for the read stage's budget. Measured with
// tesseract 5.3 on a 2480 × 3508 page (8.7 million pixels): 63 MB of
// resident memory for a blank page, 145 MB for one dense with print; the
// estimate (48 MiB and 12 bytes a pixel, 152 MiB there) covers both.
func ProcessBytes(w, h int) int64 { return 48<<20 + 12*int64(w)*int64(h) }

// maxTSVBytes bounds tesseract's output for one page: a dense A4 page at
// 300 dpi gives about 100 KiB.
const maxTSVBytes = 16 << 20

func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ErrFailed
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() > limit {
		return nil, ErrFailed
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, ErrFailed
	}
	return buf.Bytes(), nil
}
