#!/bin/sh
# submit.sh: submit one document file as a job and print the API's answer:
# a PDF, XML e-invoice or image as the file itself (multipart, with the type
# its name says), any other file as text content escaped as a JSON string
# (no jq needed).
#
#   scripts/submit.sh [API_URL] FILE DOCUMENT_ID [OPERATION_VERSION]     version default 1
#
# The API's URL is taken as scripts/demo.sh takes it: the first argument
# when it starts with http:// or https://, else API_URL.
#
# Environment:
#   API_URL        the API, when no argument names it (default http://localhost:8080, as make run)
#   TENANT_TOKEN   a tenant token (default acme-demo-tenant-token, from make run)
#
# It exits 0 when the job was accepted (202) or deduped (200), non-zero with
# the API's error body otherwise. Needs curl and Go (the JSON string is made
# by scripts/demojson).
set -eu

usage() {
	echo "usage: scripts/submit.sh [API_URL] FILE DOCUMENT_ID [OPERATION_VERSION]" >&2
	exit 2
}
base=${API_URL:-http://localhost:8080}
case ${1-} in http://* | https://*) base=$1 && shift ;; esac
[ $# -ge 2 ] && [ $# -le 3 ] || usage
file=$1
doc=$2
version=${3:-1}
base=${base%/}
token=${TENANT_TOKEN:-acme-demo-tenant-token}

[ -r "$file" ] || { echo "submit: cannot read $file" >&2; exit 2; }
case $version in '' | *[!0-9]*) echo "submit: OPERATION_VERSION must be a positive whole number, got '$version'" >&2; exit 2 ;; esac
command -v curl >/dev/null 2>&1 || { echo "submit: curl is required" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relayops-submit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/demojson" ./scripts/demojson)

# A PDF, an XML e-invoice or an image is sent as the file itself (a
# multipart part named file), declared as the type its name says, as
# curl -F file=@FILE does: the API checks the file's first bytes against
# it, so a text file named .pdf is its 415, not a job rejected later as
# not_an_invoice. Anything else goes as text content. documentId goes
# through the JSON quoting too: the API, not this script, says whether it
# is valid.
case $file in
*.pdf | *.PDF) type=application/pdf ;;
*.xml | *.XML) type=application/xml ;;
*.png | *.PNG) type=image/png ;;
*.jpg | *.JPG | *.jpeg | *.JPEG) type=image/jpeg ;;
*.tif | *.TIF | *.tiff | *.TIFF) type=image/tiff ;;
*) type= ;;
esac
case $type in
?*)
	status=$(curl -sS -o "$tmp/answer" -w '%{http_code}' -X POST "$base/v1/jobs" \
		-H "Authorization: Bearer $token" -F "documentId=$doc" -F "operationVersion=$version" \
		-F "file=@$file;type=$type")
	;;
*)
	printf '%s' "$doc" | "$tmp/demojson" quote >"$tmp/doc"
	"$tmp/demojson" quote <"$file" >"$tmp/content"
	printf '{"documentId":%s,"operationVersion":%s,"content":%s}' \
		"$(cat "$tmp/doc")" "$version" "$(cat "$tmp/content")" >"$tmp/body"
	status=$(curl -sS -o "$tmp/answer" -w '%{http_code}' -X POST "$base/v1/jobs" \
		-H "Authorization: Bearer $token" -H 'Content-Type: application/json' --data-binary "@$tmp/body")
	;;
esac
cat "$tmp/answer"
echo
case $status in
200 | 202) exit 0 ;;
*) echo "submit: POST $base/v1/jobs answered $status" >&2; exit 1 ;;
esac
