#!/usr/bin/env python3
"""Writes sales-api.json, the Grafana dashboard over the service's metrics (README, "Metrics").

The panels are listed here once; run this after changing them (the JSON is committed, so that
Grafana can import it as it is: Dashboards → New → Import)."""
import json
import pathlib

JOB = 'job="sales-api"'

# (title, unit, [(expr, legend)], width)
ROWS = [
    ("Requisições", [
        ("Requisições por rota", "reqps", [
            (f'sum by (route) (rate(http_server_request_duration_seconds_count{{{JOB}}}[$__rate_interval]))', "{{route}}")], 12),
        ("Respostas 5xx (fração)", "percentunit", [
            (f'sum(rate(http_server_request_duration_seconds_count{{{JOB},status="5xx"}}[$__rate_interval])) / sum(rate(http_server_request_duration_seconds_count{{{JOB}}}[$__rate_interval]))', "5xx")], 6),
        ("Respostas por classe", "reqps", [
            (f'sum by (status) (rate(http_server_request_duration_seconds_count{{{JOB}}}[$__rate_interval]))', "{{status}}")], 6),
        ("Latência p99 por rota", "s", [
            (f'histogram_quantile(0.99, sum by (route, le) (rate(http_server_request_duration_seconds_bucket{{{JOB}}}[$__rate_interval])))', "{{route}}")], 12),
        ("Latência p50 por rota", "s", [
            (f'histogram_quantile(0.5, sum by (route, le) (rate(http_server_request_duration_seconds_bucket{{{JOB}}}[$__rate_interval])))', "{{route}}")], 12),
    ]),
    ("Banco de dados", [
        ("Conexões por pool e estado", "short", [
            (f'sum by (pool, state) (db_pool_connections{{{JOB}}})', "{{pool}} {{state}}"),
            (f'sum by (pool) (db_pool_max_connections{{{JOB}}})', "{{pool}} teto")], 8),
        ("Espera por conexão (p95)", "s", [
            (f'histogram_quantile(0.95, sum by (instance, le) (rate(db_pool_acquire_duration_seconds_bucket{{{JOB}}}[$__rate_interval])))', "{{instance}}")], 8),
        ("Esperando conexão / desistências", "short", [
            (f'sum by (pool) (db_pool_waiting{{{JOB}}})', "esperando {{pool}}"),
            (f'sum by (kind) (increase(db_pool_timeouts_total{{{JOB}}}[$__rate_interval]))', "desistência {{kind}}")], 8),
    ]),
    ("Webhooks", [
        ("Entregas vencidas", "short", [
            (f'max(webhook_deliveries_due{{{JOB}}})', "vencidas")], 6),
        ("Idade da mais antiga", "s", [
            (f'max(webhook_oldest_due_age_seconds{{{JOB}}})', "idade")], 6),
        ("Tentativas por resultado", "ops", [
            (f'sum by (outcome) (rate(webhook_attempts_total{{{JOB}}}[$__rate_interval]))', "{{outcome}}")], 6),
        ("Em andamento", "short", [
            (f'sum by (instance) (webhook_deliveries_in_flight{{{JOB}}})', "{{instance}}")], 6),
    ]),
    ("Propostas depois da assinatura", [
        ("Prazo de aceitação vencido sem decisão", "short", [
            (f'max(proposals_acceptance_overdue{{{JOB}}})', "vencidas")], 12),
        ("Operações pendentes por tipo", "short", [
            (f'max by (kind) (proposal_operations_pending{{{JOB}}})', "{{kind}}"),
            (f'max by (kind) (proposal_operations_overdue{{{JOB}}})', "{{kind}} atrasadas")], 12),
    ]),
    ("Serviços externos", [
        ("Latência p95 por provedor", "s", [
            (f'histogram_quantile(0.95, sum by (provider, le) (rate(outbound_request_duration_seconds_bucket{{{JOB}}}[$__rate_interval])))', "{{provider}}")], 12),
        ("Erros por provedor e tipo", "ops", [
            (f'sum by (provider, kind) (rate(outbound_errors_total{{{JOB}}}[$__rate_interval]))', "{{provider}} {{kind}}")], 12),
    ]),
    ("Processo", [
        ("bcrypt: fila e em andamento", "short", [
            (f'sum by (instance) (bcrypt_waiting{{{JOB}}})', "fila {{instance}}"),
            (f'sum by (instance) (bcrypt_running{{{JOB}}})', "rodando {{instance}}")], 6),
        ("Cache do catálogo: acertos", "percentunit", [
            (f'sum(rate(catalog_cache_hits_total{{{JOB}}}[$__rate_interval])) / (sum(rate(catalog_cache_hits_total{{{JOB}}}[$__rate_interval])) + sum(rate(catalog_cache_misses_total{{{JOB}}}[$__rate_interval])))', "acertos"),
            (f'sum(rate(catalog_cache_invalidations_total{{{JOB}}}[$__rate_interval]))', "invalidações/s")], 6),
        ("Memória residente", "bytes", [
            (f'process_resident_memory_bytes{{{JOB}}}', "{{instance}}")], 6),
        ("CPU", "percentunit", [
            (f'rate(process_cpu_seconds_total{{{JOB}}}[$__rate_interval])', "{{instance}}")], 6),
    ]),
]


def dashboard():
    panels, y, next_id = [], 0, 1
    for row_title, row_panels in ROWS:
        panels.append({"type": "row", "title": row_title, "id": next_id, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}})
        next_id, y, x = next_id + 1, y + 1, 0
        for title, unit, targets, width in row_panels:
            if x + width > 24:
                x, y = 0, y + 8
            panels.append({
                "type": "timeseries", "title": title, "id": next_id,
                "datasource": {"type": "prometheus", "uid": "${datasource}"},
                "gridPos": {"h": 8, "w": width, "x": x, "y": y},
                "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
                "options": {"legend": {"displayMode": "list", "placement": "bottom"}},
                "targets": [{"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend}
                            for i, (expr, legend) in enumerate(targets)],
            })
            next_id, x = next_id + 1, x + width
        y += 8
    return {
        "title": "sales-api",
        "uid": "sales-api",
        "tags": ["sales-api"],
        "timezone": "browser",
        "schemaVersion": 39,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "30s",
        "templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus",
                                 "label": "Prometheus"}]},
        "panels": panels,
    }


if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("sales-api.json")
    out.write_text(json.dumps(dashboard(), indent=2, ensure_ascii=False) + "\n")
    print(out)
