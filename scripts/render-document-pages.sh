#!/usr/bin/env bash
# The pictures of the documents under docs/documento/: the sample long proposal (a 200-character
# address, every party) rendered by the service's own PdfRenderer, as sealed for signature and
# then signed (its evidence page after), the first page of its draft, its certificate (and the
# first page of it as served once the contract ended) and the second
# page of the same proposal's terms as the shop mails them (decision 271); each PDF
# page to PNG by poppler's pdftoppm.
set -euo pipefail
cd "$(dirname "$0")/.."

out=docs/documento
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo run --quiet -p adapters-signature --example sample_document -- "$work"
rm -f "$out"/assinado-pagina-*.png "$out"/rascunho-pagina-*.png "$out"/certificado-pagina-*.png \
  "$out"/certificado-encerrado-pagina-*.png "$out"/termos-loja-pagina-*.png
mkdir -p "$out"
pdftoppm -r 80 -png "$work/contrato-assinado.pdf" "$out/assinado-pagina"
pdftoppm -r 80 -png -f 1 -l 1 "$work/rascunho.pdf" "$out/rascunho-pagina"
pdftoppm -r 80 -png "$work/certificado.pdf" "$out/certificado-pagina"
# The certificate served once the contract ended: its first page, stamped (decision 277).
pdftoppm -r 80 -png -f 1 -l 1 "$work/certificado-encerrado.pdf" "$out/certificado-encerrado-pagina"
# The shop's terms: the page with the premium charged, its collection and provisional cover, and
# the parties (the insurer, no intermediary; decision 280).
pdftoppm -r 80 -png -f 2 -l 2 "$work/termos-loja.pdf" "$out/termos-loja-pagina"
ls "$out"/*.png
