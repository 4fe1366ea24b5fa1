// Package doccheck checks the repository's Markdown documentation: every
// relative link names a file or directory that exists, every anchor names a
// heading of its page, and every page under docs/ can be reached from the
// README by following links. The README is short and points to task pages,
// so a page nothing links to is a page nobody finds.
package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Problem is one broken link or unreachable page.
type Problem struct {
	File string // the page, relative to the root
	Line int    // 1-based; 0 for a page-level problem
	What string
}

func (p Problem) String() string {
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", p.File, p.What)
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.What)
}

// link is one inline Markdown link found on a page.
type link struct {
	line   int
	target string
}

// page is what a check needs of one Markdown file.
type page struct {
	links   []link
	anchors map[string]bool
}

// inlineLink matches [text](target) and ![alt](target), with an optional
// "title"; the target has no spaces.
var inlineLink = regexp.MustCompile(`\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// parse reads a page's links and the anchors of its headings, ignoring
// fenced code blocks (a shell comment is not a heading).
func parse(text string) page {
	p := page{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if marker := fenceMarker(trimmed); marker != "" {
			switch {
			case fence == "":
				fence = marker
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if h, ok := heading(line); ok {
			slug := Slug(h)
			if n := seen[slug]; n > 0 {
				p.anchors[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				p.anchors[slug] = true
			}
			seen[slug]++
		}
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			p.links = append(p.links, link{line: i + 1, target: m[1]})
		}
	}
	return p
}

func fenceMarker(trimmed string) string {
	for _, m := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, m) {
			return m
		}
	}
	return ""
}

// heading returns an ATX heading's text ("## Retention" → "Retention").
func heading(line string) (string, bool) {
	level := len(line) - len(strings.TrimLeft(line, "#"))
	if level == 0 || level > 6 || len(line) == level || line[level] != ' ' {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#")), true
}

// Slug is the anchor GitHub gives a heading: lower case, every character
// that is not a letter, digit, space, hyphen or underscore dropped, spaces
// turned into hyphens ("Trying it locally (`make run`)" →
// "trying-it-locally-make-run").
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && isLetter(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isLetter(r rune) bool {
	return strings.ToLower(string(r)) != strings.ToUpper(string(r))
}

// external reports a target that leaves the repository (checked by nobody
// here: tests reach no network).
func external(target string) bool {
	for _, scheme := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(target, scheme) {
			return true
		}
	}
	return false
}

// Check checks the README at root/readme and every *.md file directly under
// root/docsDir: each relative link resolves to an existing path, each anchor
// to a heading of the page it names, and each docs page is reachable from
// the README. Problems are sorted by file and line.
func Check(root, readme, docsDir string) ([]Problem, error) {
	names := []string{filepath.ToSlash(readme)}
	docs, err := filepath.Glob(filepath.Join(root, docsDir, "*.md"))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			return nil, err
		}
		names = append(names, filepath.ToSlash(rel))
	}
	c := &checker{root: root, pages: map[string]page{}}
	var problems []Problem
	for _, name := range names {
		p, err := c.page(name)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			if what := c.resolve(name, l.target); what != "" {
				problems = append(problems, Problem{File: name, Line: l.line, What: what})
			}
		}
	}
	problems = append(problems, c.unreachable(names)...)
	sort.SliceStable(problems, func(i, j int) bool {
		if problems[i].File != problems[j].File {
			return problems[i].File < problems[j].File
		}
		return problems[i].Line < problems[j].Line
	})
	return problems, nil
}

type checker struct {
	root  string
	pages map[string]page // by slash path relative to root
}

func (c *checker) page(name string) (page, error) {
	if p, ok := c.pages[name]; ok {
		return p, nil
	}
	b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(name)))
	if err != nil {
		return page{}, err
	}
	p := parse(string(b))
	c.pages[name] = p
	return p, nil
}

// target splits a link into the page it names (relative to root, slash
// separated; from for a bare "#anchor") and its anchor.
func target(from, t string) (path, anchor string) {
	path, anchor, _ = strings.Cut(t, "#")
	if path == "" {
		return from, anchor
	}
	return filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), path))), anchor
}

// resolve says what is wrong with one link of page from, or "".
func (c *checker) resolve(from, t string) string {
	if external(t) {
		return ""
	}
	path, anchor := target(from, t)
	if strings.HasPrefix(path, "../") || path == ".." {
		return fmt.Sprintf("link %q leaves the repository", t)
	}
	if _, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(path))); err != nil {
		return fmt.Sprintf("link %q: %s does not exist", t, path)
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(path, ".md") {
		return fmt.Sprintf("link %q: an anchor into %s, which is not a Markdown page", t, path)
	}
	p, err := c.page(path)
	if err != nil {
		return fmt.Sprintf("link %q: %v", t, err)
	}
	if !p.anchors[anchor] {
		return fmt.Sprintf("link %q: %s has no heading with the anchor #%s", t, path, anchor)
	}
	return ""
}

// unreachable lists the pages among names (names[0] is the README) that no
// chain of links from the README reaches.
func (c *checker) unreachable(names []string) []Problem {
	reached := map[string]bool{names[0]: true}
	queue := []string{names[0]}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, l := range c.pages[name].links {
			if external(l.target) {
				continue
			}
			path, _ := target(name, l.target)
			if _, ok := c.pages[path]; ok && !reached[path] {
				reached[path] = true
				queue = append(queue, path)
			}
		}
	}
	var problems []Problem
	for _, name := range names[1:] {
		if !reached[name] {
			problems = append(problems, Problem{File: name, What: "no link from " + names[0] + " (or a page it links) reaches this page"})
		}
	}
	return problems
}
