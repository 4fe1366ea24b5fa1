package deploy

import (
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/relayops/relayops/internal/config"
)

// repoRoot is where docker-compose.yml, the Dockerfile and go.mod live,
// relative to this package's directory (go test's working directory).
const repoRoot = ".."

// secretEnv satisfies the compose file's ${VAR:?} interpolations, as a user's
// environment or .env would.
var secretEnv = map[string]string{
	"RELAYOPS_TENANT_TOKENS":   "acme:tok-acme-0123456789,globex:tok-globex-0123456789",
	"RELAYOPS_OPERATOR_TOKENS": "alice:tok-alice-0123456789",
}

// binaries are the relayops services of the compose file and what runs them.
var binaries = []struct {
	service string // compose service
	path    string // installed by the Dockerfile
	pkg     string // Go package it is built from
}{
	{"api", "/usr/local/bin/relayops-api", "./cmd/api"},
	{"worker", "/usr/local/bin/relayops-worker", "./cmd/worker"},
}

type testBundle struct {
	project *types.Project
	api     types.ServiceConfig
	worker  types.ServiceConfig
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	project, err := loadProject(t, secretEnv)
	require.NoError(t, err)
	for _, name := range []string{"redis", "api", "worker", "prometheus"} {
		require.Contains(t, project.Services, name, "service %s", name)
	}
	return &testBundle{project: project, api: project.Services["api"], worker: project.Services["worker"]}
}

// loadProject loads and validates docker-compose.yml the way `docker compose`
// does, with env as the only interpolation source (never the developer's own
// environment or .env), plus any extra options.
func loadProject(t *testing.T, env map[string]string, opts ...cli.ProjectOptionsFn) (*types.Project, error) {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	opts = append([]cli.ProjectOptionsFn{cli.WithWorkingDirectory(root), cli.WithEnv(list)}, opts...)
	o, err := cli.NewProjectOptions([]string{filepath.Join(root, "docker-compose.yml")}, opts...)
	require.NoError(t, err)
	return o.LoadProject(t.Context())
}

// serviceConfig is what the service's binary would make of the environment
// compose gives it.
func serviceConfig(t *testing.T, s types.ServiceConfig) *config.Config {
	t.Helper()
	cfg, err := config.FromEnv(func(k string) string {
		if v := s.Environment[k]; v != nil {
			return *v
		}
		return ""
	})
	require.NoError(t, err, "service %s: config.FromEnv rejects its compose environment", s.Name)
	return cfg
}

func port(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	n, err := strconv.Atoi(p)
	require.NoError(t, err, "address %q", addr)
	return n
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	require.NoError(t, err)
	return string(b)
}

func TestCompose_BinariesAcceptTheirEnvironment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	api := serviceConfig(t, b.api)
	serviceConfig(t, b.worker)
	require.Equal(t, "redis://redis:6379/0", api.RedisURL)
	require.Len(t, api.TenantTokens, 2, "tokens come from the user's environment, unchanged")
	require.Len(t, api.OperatorTokens, 1)
}

func TestCompose_EnvExampleSatisfiesInterpolation(t *testing.T) {
	t.Parallel()
	project, err := loadProject(t, nil,
		cli.WithEnvFiles(filepath.Join(repoRoot, ".env.example")), cli.WithDotEnv)
	require.NoError(t, err)
	serviceConfig(t, project.Services["api"])
	serviceConfig(t, project.Services["worker"])
}

func TestCompose_MissingToken_FailsToLoad(t *testing.T) {
	t.Parallel()
	for missing := range secretEnv {
		t.Run(missing, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{}
			for k, v := range secretEnv {
				if k != missing {
					env[k] = v
				}
			}
			_, err := loadProject(t, env)
			require.ErrorContains(t, err, missing, "secrets are required from the environment, never defaulted")
		})
	}
}

func TestCompose_EnvironmentNamesOnlyKnownVariables(t *testing.T) {
	t.Parallel()
	b := setup(t)
	known := map[string]bool{}
	for _, v := range config.Vars() {
		known[v.Name] = true
	}
	for _, s := range b.project.Services {
		for k := range s.Environment {
			if strings.HasPrefix(k, "RELAYOPS_") {
				require.True(t, known[k], "service %s sets %s, which internal/config does not read", s.Name, k)
			}
		}
	}
}

func TestCompose_ShardsIdenticalOnAPIAndWorker(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, shards string
		want         int
	}{
		{"default", "", 16},
		{"override", "64", 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"RELAYOPS_SHARDS": tc.shards}
			for k, v := range secretEnv {
				env[k] = v
			}
			project, err := loadProject(t, env)
			require.NoError(t, err)
			api, worker := project.Services["api"], project.Services["worker"]
			require.NotNil(t, api.Environment["RELAYOPS_SHARDS"], "api sets RELAYOPS_SHARDS explicitly")
			require.Equal(t, api.Environment["RELAYOPS_SHARDS"], worker.Environment["RELAYOPS_SHARDS"])
			require.Equal(t, tc.want, serviceConfig(t, api).Shards)
		})
	}
}

func TestCompose_EveryServiceHasHealthcheck(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, s := range b.project.Services {
		hc := s.HealthCheck
		require.NotNil(t, hc, "service %s", s.Name)
		require.False(t, hc.Disable, "service %s", s.Name)
		require.GreaterOrEqual(t, len(hc.Test), 2, "service %s", s.Name)
		require.Contains(t, []string{"CMD", "CMD-SHELL"}, hc.Test[0], "service %s", s.Name)
	}
}

func TestCompose_RedisIsDurable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	redis := b.project.Services["redis"]
	cmd := strings.Join(redis.Command, " ")
	require.Contains(t, cmd, "--appendonly yes")
	require.Contains(t, cmd, "--appendfsync everysec")
	require.Contains(t, strings.Join(redis.HealthCheck.Test, " "), "redis-cli ping")

	var data *types.ServiceVolumeConfig
	for i, v := range redis.Volumes {
		if v.Target == "/data" {
			data = &redis.Volumes[i]
		}
	}
	require.NotNil(t, data, "redis keeps /data on a volume")
	require.Equal(t, types.VolumeTypeVolume, data.Type)
	require.Contains(t, b.project.Volumes, data.Source, "a named volume, declared at the top level")
}

func TestCompose_ServicesWaitForHealthyRedis(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, s := range []types.ServiceConfig{b.api, b.worker} {
		require.Equal(t, types.ServiceConditionHealthy, s.DependsOn["redis"].Condition, "service %s", s.Name)
	}
}

func TestCompose_WorkersScaleWithoutHostPorts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NotNil(t, b.worker.Deploy)
	require.NotNil(t, b.worker.Deploy.Replicas)
	require.GreaterOrEqual(t, *b.worker.Deploy.Replicas, 2)
	require.Empty(t, b.worker.Ports, "a published port would stop a second replica from starting")
	require.Empty(t, b.worker.ContainerName, "a fixed container name would stop a second replica")
}

func TestCompose_APIPublishesItsHTTPPort(t *testing.T) {
	t.Parallel()
	b := setup(t)
	want := port(t, serviceConfig(t, b.api).HTTPAddr)
	require.Len(t, b.api.Ports, 1)
	p := b.api.Ports[0]
	require.EqualValues(t, want, p.Target, "container port = RELAYOPS_HTTP_ADDR's port")
	require.Equal(t, strconv.Itoa(want), p.Published)
}

func TestCompose_APIChartsUsePrometheusService(t *testing.T) {
	t.Parallel()
	b := setup(t)
	u, err := url.Parse(serviceConfig(t, b.api).PrometheusURL)
	require.NoError(t, err)
	require.Equal(t, "prometheus", u.Hostname())
	require.Contains(t, b.project.Services, u.Hostname())
}

// promConfig is the part of prometheus.yml this test checks.
type promConfig struct {
	ScrapeConfigs []struct {
		JobName       string `yaml:"job_name"`
		MetricsPath   string `yaml:"metrics_path"`
		StaticConfigs []struct {
			Targets []string `yaml:"targets"`
		} `yaml:"static_configs"`
		DNSSDConfigs []struct {
			Names []string `yaml:"names"`
			Type  string   `yaml:"type"`
			Port  int      `yaml:"port"`
		} `yaml:"dns_sd_configs"`
	} `yaml:"scrape_configs"`
}

func TestPrometheus_ScrapesAPIAndEveryWorker(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var mounted bool
	for _, v := range b.project.Services["prometheus"].Volumes {
		if v.Target == "/etc/prometheus/prometheus.yml" {
			mounted = true
			require.Equal(t, filepath.Join(b.project.WorkingDir, "deploy", "prometheus.yml"), v.Source)
		}
	}
	require.True(t, mounted, "deploy/prometheus.yml is mounted as Prometheus's config")

	var prom promConfig
	require.NoError(t, yaml.Unmarshal([]byte(readFile(t, "deploy/prometheus.yml")), &prom))
	apiTarget := "api:" + strconv.Itoa(port(t, serviceConfig(t, b.api).HTTPAddr))
	workerPort := port(t, serviceConfig(t, b.worker).MetricsAddr)
	var api, worker bool
	for _, sc := range prom.ScrapeConfigs {
		require.Contains(t, []string{"", "/metrics"}, sc.MetricsPath, "job %s", sc.JobName)
		for _, st := range sc.StaticConfigs {
			api = api || contains(st.Targets, apiTarget)
		}
		for _, dns := range sc.DNSSDConfigs {
			// Type A on the service name: one record per replica.
			worker = worker || (contains(dns.Names, "worker") && dns.Type == "A" && dns.Port == workerPort)
		}
	}
	require.True(t, api, "a static target %s", apiTarget)
	require.True(t, worker, "a dns_sd_config of type A on worker, port %d", workerPort)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	stage int    // index of the FROM it belongs to
	cmd   string // upper case: FROM, RUN, COPY, …
	args  string
}

func parseDockerfile(text string) []instruction {
	var out []instruction
	stage, pending := -1, ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending += cont + " "
			continue
		}
		line, pending = pending+line, ""
		cmd, args, _ := strings.Cut(line, " ")
		cmd = strings.ToUpper(cmd)
		if cmd == "FROM" {
			stage++
		}
		out = append(out, instruction{stage: stage, cmd: cmd, args: strings.TrimSpace(args)})
	}
	return out
}

// installed maps each file the final stage copies in to its source path.
func installed(ins []instruction) map[string]string {
	final := ins[len(ins)-1].stage
	files := map[string]string{}
	for _, in := range ins {
		if in.stage != final || in.cmd != "COPY" {
			continue
		}
		var fields []string
		for _, f := range strings.Fields(in.args) {
			if !strings.HasPrefix(f, "--") {
				fields = append(fields, f)
			}
		}
		dest := fields[len(fields)-1]
		for _, src := range fields[:len(fields)-1] {
			if strings.HasSuffix(dest, "/") {
				files[path.Join(dest, path.Base(src))] = src
			} else {
				files[dest] = src
			}
		}
	}
	return files
}

var goBuildOutput = regexp.MustCompile(`-o\s+(\S+)\s+(\./cmd/[\w-]+)`)

func TestDockerfile_InstallsBinariesTheServicesRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ins := parseDockerfile(readFile(t, "Dockerfile"))
	require.NotEmpty(t, ins)
	built := map[string]string{} // output path → package
	for _, in := range ins {
		if in.cmd == "RUN" {
			for _, m := range goBuildOutput.FindAllStringSubmatch(in.args, -1) {
				built[m[1]] = m[2]
			}
		}
	}
	files := installed(ins)
	for _, bin := range binaries {
		src, ok := files[bin.path]
		require.True(t, ok, "the final stage installs %s", bin.path)
		require.Equal(t, bin.pkg, built[src], "%s is built from %s", bin.path, bin.pkg)

		s := b.project.Services[bin.service]
		require.Equal(t, bin.path, s.Command[0], "service %s runs its binary", s.Name)
		require.Equal(t, types.HealthCheckTest{"CMD", bin.path, "-healthcheck"}, s.HealthCheck.Test)
	}
}

func TestDockerfile_StaticNonRootAndMatchingGo(t *testing.T) {
	t.Parallel()
	ins := parseDockerfile(readFile(t, "Dockerfile"))
	require.NotEmpty(t, ins)
	final := ins[len(ins)-1].stage
	var user, cgoOff bool
	var builder string
	for _, in := range ins {
		switch {
		case in.cmd == "FROM" && in.stage == 0:
			builder, _, _ = strings.Cut(in.args, " ")
		case in.cmd == "USER" && in.stage == final:
			name, _, _ := strings.Cut(in.args, ":")
			user = name != "root" && name != "0"
		case (in.cmd == "ENV" || in.cmd == "RUN") && in.stage != final:
			cgoOff = cgoOff || strings.Contains(in.args, "CGO_ENABLED=0")
		}
	}
	require.True(t, user, "the final stage's last USER is not root")
	require.True(t, cgoOff, "binaries are built with CGO_ENABLED=0")

	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(readFile(t, "go.mod"))
	require.NotNil(t, goVersion)
	require.Equal(t, "golang:"+goVersion[1], builder, "builder image matches go.mod's go version")
}

// The runtime image reads scans: it installs tesseract with the languages
// of RELAYOPS_OCR_LANGUAGES' default.
func TestDockerfile_RuntimeInstallsTesseractAndItsLanguages(t *testing.T) {
	t.Parallel()
	ins := parseDockerfile(readFile(t, "Dockerfile"))
	final := ins[len(ins)-1].stage
	var packages string
	for _, in := range ins {
		if in.cmd == "RUN" && in.stage == final {
			packages += in.args
		}
	}
	for _, p := range []string{"tesseract-ocr", "tesseract-ocr-deu", "tesseract-ocr-fra", "tesseract-ocr-nld", "tesseract-ocr-spa", "tesseract-ocr-ita"} {
		require.Regexp(t, `(^|\s)`+regexp.QuoteMeta(p)+`(\s|$)`, packages, "the final stage installs %s", p)
	}
}

func TestDockerignore_KeepsEnvFilesOut(t *testing.T) {
	t.Parallel()
	lines := strings.Fields(readFile(t, ".dockerignore"))
	require.Contains(t, lines, ".env", ".env holds the tokens")
	require.Contains(t, lines, ".git")
}
