// Package deploy holds no code: its test checks that docker-compose.yml, the
// Dockerfile and deploy/prometheus.yml agree with each other and with the
// binaries' configuration (internal/config), since no Docker engine runs in CI,
// and that the Redis ACL users of deploy/redis-acl.conf let the api, the
// worker and the dashboard do all they do, and nothing else, on a real
// redis-server and a real Redis Cluster.
package deploy
