#!/usr/bin/env python3
"""Two instances of the service through PgBouncer (transaction pooling): what must still hold.

Run by scripts/pgbouncer.sh, which starts PgBouncer and the two instances and passes their
addresses: SALES_A, SALES_B (http://host:port) and RECEIVER_PORT (a free port for the webhook
receiver this script runs). Exits non-zero, saying what failed, when:
- concurrent proposal creates through both instances do not all answer 201, or a proposal is not
  readable (route 7) through the other instance;
- a catalog change made through one instance is not seen by the other (its cache is cleared by the
  NOTIFY that reaches it over its direct session connection);
- the webhook deliveries of status changes made through both instances do not arrive exactly once
  each.
"""
import http.server
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import sales_client
from sales_client import cpf, request, sign_in

A, B = os.environ["SALES_A"], os.environ["SALES_B"]
RECEIVER_PORT = int(os.environ["RECEIVER_PORT"])
PROPOSALS = int(os.environ.get("PGBOUNCER_PROPOSALS", "40"))
CHANGES = int(os.environ.get("PGBOUNCER_STATUS_CHANGES", "12"))


def call(method, url, token=None, body=None):
    status, answer, _ = request(method, url, token, body)
    return status, answer


def proposal_body(number):
    return sales_client.proposal_body(cpf(310_000_000 + number))


received = []
received_lock = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with received_lock:
            received.append((self.headers.get("webhook-id"), json.loads(body)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", RECEIVER_PORT), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    partner = sign_in(A, "parceiro@demo.com.br", "Parceiro#2026", "PARCEIRO")
    office = sign_in(B, "backoffice@demo.com.br", "Backoffice#2026", "BACKOFFICE")

    status, body = call("POST", f"{A}/hooks", partner, {
        "events": ["ALTERAÇÃO_STATUS"], "endpoint": f"http://127.0.0.1:{RECEIVER_PORT}/eventos", "status": "ATIVO"})
    assert status == 200, ("webhook subscription", status, body)

    # Concurrent creates through both instances, then each read through the other one.
    def create(number):
        base = A if number % 2 == 0 else B
        status, body = call("POST", f"{base}/proposal/create", partner, proposal_body(number))
        assert status == 201, ("create", number, status, body)
        return number, body["document"][0]["identificador"]

    with ThreadPoolExecutor(max_workers=16) as pool:
        created = list(pool.map(create, range(PROPOSALS)))
    assert len({identifier for _, identifier in created}) == PROPOSALS

    def read(item):
        number, identifier = item
        base = B if number % 2 == 0 else A
        status, body = call("GET", f"{base}/proposal/byIdentifier/{identifier}", partner)
        assert status == 200 and body["data"]["proposal"]["identifier"] == identifier, ("route 7", status, body)

    with ThreadPoolExecutor(max_workers=16) as pool:
        for _ in range(3):
            list(pool.map(read, created))
    print(f"{PROPOSALS} propostas criadas em paralelo pelas duas instâncias e lidas pela outra")

    # A catalog change through A is seen by B, whose cache held the listing before.
    listing = f"{B}/product/list?conditions[codigo_produto]=105"
    status, body = call("GET", listing, partner)
    assert status == 200 and body["document"] == [], (status, body)
    status, body = call("POST", f"{A}/product", office, {
        "codigo_produto": 105, "nome": "Seguro Residencial", "codigo_integracao": 9105, "valor": 3990,
        "bank": [{"codigoBanco": "001", "nome": "Banco do Brasil"}]})
    assert status == 201, ("product", status, body)
    deadline = time.time() + 10
    while True:
        status, body = call("GET", listing, partner)
        if status == 200 and len(body["document"]) == 1:
            break
        assert time.time() < deadline, ("B never saw the new product", status, body)
        time.sleep(0.1)
    print("mudança no catálogo feita em A vista por B")

    # Status changes through both instances: one delivery each, exactly once.
    def cancel(item):
        number, identifier = item
        base = A if number % 2 == 0 else B
        status, body = call("PATCH", f"{base}/proposal/{identifier}/status", office, {"status": "CANCELADO"})
        assert status == 200, ("status change", status, body)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(cancel, created[:CHANGES]))
    deadline = time.time() + 30
    while True:
        with received_lock:
            count = len(received)
        if count >= CHANGES:
            break
        assert time.time() < deadline, f"{count} of {CHANGES} deliveries arrived"
        time.sleep(0.2)
    time.sleep(2)  # anything delivered twice would arrive by now
    with received_lock:
        ids = [message_id for message_id, _ in received]
        identifiers = sorted(body["data"]["identificador"] for _, body in received)
    assert len(ids) == CHANGES and len(set(ids)) == CHANGES, f"deliveries: {len(ids)}, distinct: {len(set(ids))}"
    assert identifiers == sorted(identifier for _, identifier in created[:CHANGES]), identifiers
    print(f"{CHANGES} mudanças de status entregues por webhook uma vez cada")
    server.shutdown()


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"FALHOU: {failure}", file=sys.stderr)
        sys.exit(1)
