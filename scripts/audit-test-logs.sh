#!/usr/bin/env bash
# The log audit: after the whole test suite, the services' captured logs (SALES_TEST_LOG_DIR, written
# by the black-box harness at debug level) must hold no sensitive value the tests sent: health data
# (medicines), political exposure fields, full CPFs, passwords, webhook secrets, tokens. Fails when a
# value is found, and when nothing was captured (an audit of nothing proves nothing).
set -euo pipefail
dir="${1:?usage: audit-test-logs.sh DIR}"
shopt -s nullglob
files=("$dir"/*.log)
lines=$(cat "${files[@]}" /dev/null | wc -l)
requests=$(cat "${files[@]}" /dev/null | grep -c 'route=/customer/create' || true)
if [ "${#files[@]}" -eq 0 ] || [ "$lines" -lt 1000 ] || [ "$requests" -lt 1 ]; then
  echo "auditoria de logs: nada capturado em $dir (${#files[@]} arquivos, $lines linhas, $requests cadastros)" >&2
  exit 1
fi
# What the tests send and no log line may carry: medicines (LGPD art. 11 health data), the names of
# the sensitive fields with a value beside them, the fixtures' CPFs in full (digits or masked form),
# their passwords, and secrets by their prefixes.
patterns=(
  'Losartana' 'Metformina' 'Rivotril'
  'medicamento_descricao[=:" ]+[^n ]' 'medicationDescription[=:" ]+[^n ]' 'cargo_politico[=:" ]+[^n ]'
  '12345678909' '123\.456\.789-09' '52998224725' '529\.982\.247-25'
  'Vendas#2026' 'Parceiro#2026' 'Nova#Senha'
  'whsec_[A-Za-z0-9+/=_-]{8,}' 'sk_(test|live)_[A-Za-z0-9]{4,}' 'eyJ[A-Za-z0-9_-]{20,}\.'
)
found=0
for pattern in "${patterns[@]}"; do
  if hits=$(grep -EnH -- "$pattern" "${files[@]}" | head -3) && [ -n "$hits" ]; then
    echo "auditoria de logs: '$pattern' encontrado:" >&2
    echo "$hits" | cut -c1-300 >&2
    found=1
  fi
done
if [ "$found" = 1 ]; then
  exit 1
fi
echo "auditoria de logs: $lines linhas de ${#files[@]} processos de teste, nenhum dado sensível"
