# syntax=docker/dockerfile:1
#
# One image, both binaries: docker-compose.yml picks the command per service
# (relayops-api or relayops-worker). Build: docker build -t relayops:dev .

# --- build: static binaries (no cgo, so they run on an image without libc).
FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so editing code does not refetch dependencies.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ENV CGO_ENABLED=0
RUN go build -trimpath -ldflags="-s -w" -o /out/relayops-api ./cmd/api \
 && go build -trimpath -ldflags="-s -w" -o /out/relayops-worker ./cmd/worker

# --- run: Debian slim with tesseract, so scans and photos are read by OCR
# (docs/ocr.md); non-root. The binaries are static and need nothing else:
# PDFs are read by PDFium compiled to WebAssembly, inside the binaries.
# Health checks run the binaries themselves (`relayops-api -healthcheck`),
# see the compose file.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-deu tesseract-ocr-fra \
    tesseract-ocr-nld tesseract-ocr-spa tesseract-ocr-ita \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/relayops-api /out/relayops-worker /usr/local/bin/
# A non-root numeric user, so runAsNonRoot checks can verify it. Its home
# holds wazero's compilation cache of PDFium (mount a volume there to keep it
# across restarts: the first start compiles it, 10–20 s).
USER 65532:65532
ENV HOME=/tmp XDG_CACHE_HOME=/tmp/.cache
# 8080: api HTTP (RELAYOPS_HTTP_ADDR); 9090: worker /metrics, /healthz (RELAYOPS_METRICS_ADDR).
EXPOSE 8080 9090
CMD ["/usr/local/bin/relayops-api"]
