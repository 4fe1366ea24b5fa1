package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPI is the OpenAPI 3.1 document of the whole API, written by hand and
// held against every answer by the tests.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the served OpenAPI document.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

func serveOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPI)
}
