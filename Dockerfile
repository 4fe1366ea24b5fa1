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

# --- run: no shell, no package manager, non-root. Health checks therefore
# run the binaries themselves (`relayops-api -healthcheck`), see the compose file.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/relayops-api /out/relayops-worker /usr/local/bin/
# 65532 is distroless's "nonroot"; numeric so runAsNonRoot checks can verify it.
USER 65532:65532
# 8080: api HTTP (RELAYOPS_HTTP_ADDR); 9090: worker /metrics, /healthz (RELAYOPS_METRICS_ADDR).
EXPOSE 8080 9090
CMD ["/usr/local/bin/relayops-api"]
