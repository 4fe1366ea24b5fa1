// Package deploy holds no code: its test checks that docker-compose.yml, the
// Dockerfile and deploy/prometheus.yml agree with each other and with the
// binaries' configuration (internal/config), since no Docker engine runs in CI.
package deploy
