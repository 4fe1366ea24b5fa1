//go:build unix

package proctest

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var metricsClient = &http.Client{Timeout: 5 * time.Second}

// Metric is the sum of the samples of name, on the process's GET /metrics
// (its first address), whose labels include every pair of labels. It fails
// the test when /metrics does not answer 200.
func (p *Process) Metric(name string, labels map[string]string) float64 {
	p.t.Helper()
	v, err := p.metric(name, labels)
	if err != nil {
		p.t.Fatalf("proctest: %s: %v", p.Name, err)
	}
	return v
}

// MetricOrZero is Metric for polling: 0 while the process does not answer.
func (p *Process) MetricOrZero(name string, labels map[string]string) float64 {
	v, _ := p.metric(name, labels)
	return v
}

func (p *Process) metric(name string, labels map[string]string) (float64, error) {
	resp, err := metricsClient.Get(p.URL("/metrics"))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, &statusError{url: p.URL("/metrics"), status: resp.StatusCode}
	}
	return Sum(string(body), name, labels), nil
}

type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string { return "GET " + e.url + ": status " + strconv.Itoa(e.status) }

// Sum is the sum of the samples of name in a Prometheus text exposition
// whose labels include every pair of want.
func Sum(exposition, name string, want map[string]string) float64 {
	sum := 0.0
	for _, line := range strings.Split(exposition, "\n") {
		if v, ok := sampleValue(line, name, want); ok {
			sum += v
		}
	}
	return sum
}

var labelPair = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)

// sampleValue parses one line of the text format and reports its value
// when it is a sample of name with every pair of want.
func sampleValue(line, name string, want map[string]string) (float64, bool) {
	if !strings.HasPrefix(line, name) || strings.HasPrefix(line, "#") {
		return 0, false
	}
	rest := line[len(name):]
	got := map[string]string{}
	if strings.HasPrefix(rest, "{") {
		end := strings.LastIndex(rest, "}")
		if end < 0 {
			return 0, false
		}
		for _, m := range labelPair.FindAllStringSubmatch(rest[1:end], -1) {
			got[m[1]] = m[2]
		}
		rest = rest[end+1:]
	}
	if !strings.HasPrefix(rest, " ") {
		return 0, false // another metric whose name starts with name
	}
	for k, v := range want {
		if got[k] != v {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
	return v, err == nil
}
