package config

// Pages bounds what the API spends on PDF pages per caller (a tenant, or an
// operator): page images (GET /v1/jobs/{jobId}/document/pages/{page}, the
// console) and the page counts of submitted PDFs (RELAYOPS_PAGE_*).
type Pages struct {
	RenderRate        Rate  // RELAYOPS_PAGE_RENDER_RATE, default 120/1m: renders one caller may start per period
	RenderConcurrency int   // RELAYOPS_PAGE_RENDER_CONCURRENCY, default 1 (1..64): renders of one caller at once
	CountConcurrency  int   // RELAYOPS_PAGE_COUNT_CONCURRENCY, default 1 (1..64): page counts of one tenant's submissions at once
	RenderInstances   int   // RELAYOPS_PAGE_RENDER_INSTANCES, default 1 (1..64): the API's page renderer processes, apart from RELAYOPS_PDF_INSTANCES
	CacheBytes        int64 // RELAYOPS_PAGE_CACHE_BYTES, default 64MiB (0: no cache; at most 16GiB)
}

func (l *loader) pages() Pages {
	p := Pages{
		RenderRate:        l.rate("RELAYOPS_PAGE_RENDER_RATE"),
		RenderConcurrency: l.intRange("RELAYOPS_PAGE_RENDER_CONCURRENCY", 1, 64),
		CountConcurrency:  l.intRange("RELAYOPS_PAGE_COUNT_CONCURRENCY", 1, 64),
		RenderInstances:   l.intRange("RELAYOPS_PAGE_RENDER_INSTANCES", 1, 64),
		CacheBytes:        l.bytes("RELAYOPS_PAGE_CACHE_BYTES"),
	}
	if !l.failed("RELAYOPS_PAGE_CACHE_BYTES") && p.CacheBytes > 16<<30 {
		l.fail("RELAYOPS_PAGE_CACHE_BYTES", "must be at most 16GiB, got %q", l.raw("RELAYOPS_PAGE_CACHE_BYTES"))
	}
	return p
}
