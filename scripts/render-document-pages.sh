#!/usr/bin/env bash
# The pictures of the documents under docs/documento/: the sample long proposal (a 200-character
# address, every party) rendered by the service's own PdfRenderer, as sealed for signature and
# then signed (its evidence page after), and the first page of its draft; each PDF page to PNG by
# poppler's pdftoppm.
set -euo pipefail
cd "$(dirname "$0")/.."

out=docs/documento
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo run --quiet -p adapters-signature --example sample_document -- "$work"
# Only the pictures drawn here: the certificate's (certificado-pagina-1.png) is not drawn by this
# script (it was photographed from a demo contract's GET /proposal/:identifier/certificate) and stays.
rm -f "$out"/assinado-pagina-*.png "$out"/rascunho-pagina-*.png
mkdir -p "$out"
pdftoppm -r 80 -png "$work/contrato-assinado.pdf" "$out/assinado-pagina"
pdftoppm -r 80 -png -f 1 -l 1 "$work/rascunho.pdf" "$out/rascunho-pagina"
ls "$out"/*.png
