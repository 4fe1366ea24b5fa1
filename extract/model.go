package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// ExtractorLLM names the model extractor in Source.Extractor.
const ExtractorLLM = "llm"

// Outcomes of one model call (ModelCall.Outcome), for the model calls
// counter: a small fixed set.
const (
	CallOK            = "ok"             // an answer that conforms to the schema
	CallInvalidOutput = "invalid_output" // an answer that does not (re-asked, then model_output_invalid)
	CallRateLimited   = "rate_limited"   // 429
	CallUnavailable   = "unavailable"    // 5xx, 408, 409, or not a completion
	CallTimeout       = "timeout"        // ModelConfig.Timeout passed
	CallUnreachable   = "unreachable"    // no connection
	CallBadRequest    = "bad_request"    // 400 and other refusals of the request
	CallUnauthorized  = "unauthorized"   // 401, 403
	CallNotFound      = "not_found"      // 404
	CallCancelled     = "cancelled"      // the attempt's own context ended
)

// CallOutcomes lists every ModelCall.Outcome.
var CallOutcomes = []string{
	CallOK, CallInvalidOutput, CallRateLimited, CallUnavailable, CallTimeout,
	CallUnreachable, CallBadRequest, CallUnauthorized, CallNotFound, CallCancelled,
}

// ModelCall describes one call to the endpoint, for metrics. (Its duration
// is the worker's inference histogram, which times the whole extract stage.)
type ModelCall struct {
	Model            string
	Outcome          string // one of CallOutcomes
	PromptTokens     int64
	CompletionTokens int64
	// Pages is how many page images the call sent (0 for text), so the
	// prompt tokens per page can be counted: PromptTokens / Pages.
	Pages int
}

// ModelConfig configures a Model.
type ModelConfig struct {
	// BaseURL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 or
	// http://127.0.0.1:11434/v1 (Ollama). Required.
	BaseURL string
	// Model is the model name sent with each request. Required.
	Model string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	// It is never logged and never part of an error.
	APIKey string
	// Timeout bounds one call. Default 60s.
	Timeout time.Duration
	// MaxTokens bounds the answer (max_completion_tokens). Default 2048.
	MaxTokens int
	// Reasks is how many times one Extract asks again after an answer that
	// does not conform to the schema, before rejecting the document with
	// model_output_invalid. Default 2; negative means none.
	Reasks int
	// HTTPClient makes the calls. Default: a client on
	// http.DefaultTransport without a timeout of its own (Timeout applies).
	HTTPClient *http.Client
	// Observe, if set, is told about every call (the worker's metrics).
	Observe func(ModelCall)
	// Now is the clock of the credentials cool-down. Default time.Now.
	Now func() time.Time
	// Vision: the model reads images, so ExtractImages may send it page
	// images. Default false (ExtractImages refuses with ErrVisionDisabled).
	Vision bool
	// ImageMaxPixels bounds each page image sent (width × height); a
	// larger page is scaled down to fit, keeping its proportions. Default
	// 2,500,000 (an A4 page at 150 dpi is 2,170,000).
	ImageMaxPixels int
}

func (c ModelConfig) withDefaults() ModelConfig {
	if c.Timeout == 0 {
		c.Timeout = time.Minute
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = 2048
	}
	if c.Reasks == 0 {
		c.Reasks = 2
	}
	if c.Reasks < 0 {
		c.Reasks = 0
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Transport: http.DefaultTransport}
	}
	if c.Observe == nil {
		c.Observe = func(ModelCall) {}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.ImageMaxPixels == 0 {
		c.ImageMaxPixels = DefaultImageMaxPixels
	}
	return c
}

func (c ModelConfig) validate() error {
	var errs []error
	if u, err := url.Parse(c.BaseURL); c.BaseURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, errors.New("extract: ModelConfig.BaseURL must be an absolute http or https URL"))
	}
	if c.Model == "" {
		errs = append(errs, errors.New("extract: ModelConfig.Model is required"))
	}
	if c.Timeout < 0 {
		errs = append(errs, errors.New("extract: ModelConfig.Timeout must not be negative"))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, errors.New("extract: ModelConfig.MaxTokens must not be negative"))
	}
	if c.ImageMaxPixels < minImagePixels {
		errs = append(errs, fmt.Errorf("extract: ModelConfig.ImageMaxPixels must be at least %d", minImagePixels))
	}
	return errors.Join(errs...)
}

// Model is the model extractor: one call to an OpenAI-compatible Chat
// Completions endpoint classifies and extracts (Classify defers), with a
// strict JSON-schema response format; the answer is checked against that
// schema again here and judged by the same validator as the rules'.
//
// The document is untrusted input: it travels only in the user message,
// fenced as data, under a system prompt that says so. The answer is
// untrusted output: anything but one conforming JSON object is asked for
// again (ModelConfig.Reasks times), then rejected as model_output_invalid;
// a conforming answer that does not add up is rejected by the validator
// whatever the model claimed.
//
// The client never retries on its own: every retry is the worker's, with
// its backoff, attempt limit and the endpoint's Retry-After.
type Model struct {
	cfg  ModelConfig
	chat openai.ChatCompletionService
	gate *setupGate
}

var _ Extractor = (*Model)(nil)

// NewModel checks cfg and returns a Model.
func NewModel(cfg ModelConfig) (*Model, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// Not openai.NewClient: it would read OPENAI_* variables, and only the
	// configuration package reads the environment.
	chat := openai.NewChatCompletionService(
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	)
	return &Model{cfg: cfg, chat: chat, gate: &setupGate{now: cfg.Now}}, nil
}

// Name is the configured model name.
func (m *Model) Name() string { return m.cfg.Model }

// Checkpointed: the extract stage is the model call, which costs money and
// is not deterministic; it must never run twice for one job.
func (m *Model) Checkpointed(stage string) bool { return stage == StageExtract }

// Classify defers: the model classifies and extracts in one call.
func (m *Model) Classify(context.Context, string) ([]byte, error) {
	return json.Marshal(Classification{DocumentType: DocDeferred})
}

// Validate judges the model's extraction like any other, with
// ValidateExtraction.
func (m *Model) Validate(ctx context.Context, extraction []byte) ([]byte, error) {
	return Validate(ctx, extraction)
}

// Extract asks the model for the document's fields.
func (m *Model) Extract(ctx context.Context, content string, _ []byte) ([]byte, error) {
	return m.extract(ctx, []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage(systemPrompt),
		openai.UserMessage(userMessage(content)),
	}, 0)
}

// extract asks with msgs until the answer conforms or the re-asks are
// spent; pages is how many page images msgs carry, for ModelCall.
func (m *Model) extract(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, pages int) ([]byte, error) {
	src := Source{Extractor: ExtractorLLM, Model: m.cfg.Model}
	for try := 0; ; try++ {
		ext, answer, problem, err := m.ask(ctx, msgs, &src, pages)
		if err != nil {
			return nil, err
		}
		if problem == "" {
			ext.Source = src
			return json.Marshal(ext)
		}
		if try == m.cfg.Reasks {
			return nil, Reject(ReasonModelOutputInvalid)
		}
		msgs = append(msgs, openai.AssistantMessage(answer), openai.UserMessage(reaskMessage(problem)))
	}
}

// ask makes one call and decodes its answer: the extraction, or the
// answer's text and the problem with it. src accumulates the tokens.
func (m *Model) ask(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, src *Source, pages int) (*Extraction, string, string, error) {
	probe, err := m.gate.admit()
	if err != nil {
		return nil, "", "", err
	}
	cctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	var raw *http.Response
	resp, err := m.chat.New(cctx, m.params(msgs), option.WithResponseInto(&raw))
	call := ModelCall{Model: m.cfg.Model, Pages: pages}
	defer func() { m.cfg.Observe(call) }()
	if err != nil {
		var me *ModelError
		call.Outcome, me, err = m.failure(ctx, cctx, raw, err)
		m.gate.answered(probe, setupRefusal(me), raw != nil)
		return nil, "", "", err
	}
	m.gate.answered(probe, nil, true)
	call.PromptTokens, call.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	src.PromptTokens += resp.Usage.PromptTokens
	src.CompletionTokens += resp.Usage.CompletionTokens
	answer := answerText(resp)
	ext, problem := decodeAnswer(answer)
	call.Outcome = CallOK
	if problem != "" {
		call.Outcome = CallInvalidOutput
	}
	return ext, answer, problem, nil
}

func (m *Model) params(msgs []openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:               shared.ChatModel(m.cfg.Model),
		Messages:            msgs,
		MaxCompletionTokens: openai.Int(int64(m.cfg.MaxTokens)),
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:        "invoice_extraction",
					Description: openai.String("The fields of one business document."),
					Strict:      openai.Bool(true),
					Schema:      answerSchema.JSON(),
				},
			},
		},
	}
}

// answerText is the first choice's text when it is a complete answer, ""
// (which decodeAnswer rejects) when there is no choice, the answer was cut
// off at the token limit, or the model refused.
func answerText(resp *openai.ChatCompletion) string {
	if len(resp.Choices) == 0 {
		return ""
	}
	c := resp.Choices[0]
	if c.FinishReason == "length" || c.Message.Refusal != "" {
		return ""
	}
	return c.Message.Content
}

// failure classifies a call that returned an error: the call's outcome and
// the error to return, which never carries the endpoint's own message.
func (m *Model) failure(ctx, cctx context.Context, raw *http.Response, err error) (string, *ModelError, error) {
	switch {
	case ctx.Err() != nil:
		// The attempt's own time is up: the worker judges that.
		return CallCancelled, nil, fmt.Errorf("extract: model call: %w", ctx.Err())
	case cctx.Err() != nil:
		return CallTimeout, nil, transportError(CodeModelTimeout)
	case raw == nil:
		return CallUnreachable, nil, transportError(CodeModelUnreachable)
	case raw.StatusCode < 400:
		// A success status whose body is not a completion.
		e := transportError(CodeModelUnavailable)
		e.Status = raw.StatusCode
		return CallUnavailable, e, e
	}
	var apiErr *openai.Error
	providerCode := ""
	if errors.As(err, &apiErr) {
		providerCode = apiErr.Code
	}
	e := statusError(raw.StatusCode, raw.Header, providerCode, m.cfg.Now())
	return callOutcome(e.Code), e, e
}

func callOutcome(code string) string {
	switch code {
	case CodeModelUnauthorized:
		return CallUnauthorized
	case CodeModelNotFound:
		return CallNotFound
	case CodeModelRateLimited:
		return CallRateLimited
	case CodeModelBadRequest:
		return CallBadRequest
	}
	return CallUnavailable
}

// setupRefusal is e when it is an ErrSetup refusal, else nil.
func setupRefusal(e *ModelError) *ModelError {
	if e != nil && errors.Is(e, ErrSetup) {
		return e
	}
	return nil
}
