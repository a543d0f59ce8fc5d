#!/usr/bin/env python3
"""The service reading from a real streaming standby: what must hold.

Run by scripts/replicas.sh, which starts a private primary, its standby and two instances reading
from it, and passes: SALES_A (lag allowed up to the default 1 s), SALES_B (any lag allowed),
METRICS_A and METRICS_B (their /metrics) and STANDBY_CONTROL (a command: `stop`, `start`,
`delay MS`). Exits non-zero, saying what failed, when:
- of 500 create-then-read pairs by one client that sends back each write's `Sales-Read-After`,
  one read is stale (route 7 not found or not the proposal just written, or the list without it),
  or the standby served none of the reads;
- a standby stopped in the middle of a stream of reads costs any of them an error, or reads do not
  go back to it once it is started again;
- while the standby applies everything 300 ms late, of 50 create-then-read pairs by a client that
  does not send `Sales-Read-After` back (every client written against the seed), one read of
  route 7 or of the history answers 404 for the proposal just created, or none of them was read
  again on the primary after the standby did not have it (so the check measured nothing);
- while the standby applies everything 3 s late (`recovery_min_apply_delay`): a sign-out is not
  seen by the very next request, a client's own write is not seen by its next read when it sends
  the position back, or instance A (1 s allowed) keeps reading from the late standby.
"""
import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import sales_client
from sales_client import cpf, request, sign_in

A, B = os.environ["SALES_A"], os.environ["SALES_B"]
METRICS_A, METRICS_B = os.environ["METRICS_A"], os.environ["METRICS_B"]
CONTROL = os.environ["STANDBY_CONTROL"]
PAIRS = int(os.environ.get("REPLICA_PAIRS", "500"))
READ_AFTER = "Sales-Read-After"


def call(method, url, token=None, body=None, read_after=None):
    status, answer, headers = request(method, url, token, body, {READ_AFTER: read_after} if read_after else None)
    return status, answer, headers.get(READ_AFTER)


def proposal_body(number):
    return sales_client.proposal_body(cpf(410_000_000 + number))


def metric(url, name, labels):
    """The sum of a metric's samples whose labels include `labels` (0 when none)."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    total = 0.0
    for line in text.splitlines():
        match = re.match(rf"^{name}\{{(.*)\}} (\S+)$", line)
        if match and all(f'{k}="{v}"' in match.group(1) for k, v in labels.items()):
            total += float(match.group(2))
    return total


def wait_for(what, condition, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"não aconteceu em {seconds} s: {what}")


def replica_usable(metrics_url):
    return metric(metrics_url, "db_replica_usable", {"replica": "replica-1"}) == 1


def create(base, token, number, read_after=None):
    status, body, position = call("POST", f"{base}/proposal/create", token, proposal_body(number), read_after)
    assert status == 201, ("create", number, status, body)
    assert position and re.fullmatch(r"[0-9A-F]+/[0-9A-F]+", position), ("Sales-Read-After após a escrita", position)
    return body["document"][0]["identificador"], position


def read_your_writes(token):
    wait_for("a réplica em uso pela instância A", lambda: replica_usable(METRICS_A))
    reads_before = metric(METRICS_A, "db_reads_total", {"target": "replica-1"})
    stale = []
    for number in range(PAIRS):
        identifier, position = create(A, token, number)
        status, body, _ = call("GET", f"{A}/proposal/byIdentifier/{identifier}", token, read_after=position)
        if status != 200 or body["data"]["proposal"]["identifier"] != identifier:
            stale.append(("rota 7", number, status))
        if number % 10 == 0:
            # The list too (no fallback can hide a stale page): the newest first.
            status, body, _ = call("GET", f"{A}/proposal/list?limit=5", token, read_after=position)
            if status != 200 or identifier not in json.dumps(body):
                stale.append(("lista", number, status))
        if number % 5 == 0:
            # An older proposal, which the standby has long had: read there.
            status, _, _ = call("GET", f"{A}/proposal/byIdentifier/{identifier}", token)
            assert status == 200, ("leitura sem posição", status)
    assert not stale, f"leituras desatualizadas: {stale[:10]} (de {len(stale)})"
    served = metric(METRICS_A, "db_reads_total", {"target": "replica-1"}) - reads_before
    assert served > 0, "a réplica não atendeu nenhuma leitura"
    print(f"{PAIRS} pares criar-e-ler com Sales-Read-After: nenhuma leitura desatualizada; "
          f"{served:.0f} leituras atendidas pela réplica")
    return identifier


def standby_stopped_under_reads(token, identifier):
    errors, done, reads = [], threading.Event(), [0]

    def reader():
        while not done.is_set():
            status, body, _ = call("GET", f"{A}/proposal/byIdentifier/{identifier}", token)
            reads[0] += 1
            if status != 200:
                errors.append((status, body))

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(1)
        subprocess.run([CONTROL, "stop"], check=True)
        time.sleep(2)
        wait_for("a réplica fora de uso", lambda: not replica_usable(METRICS_A))
        subprocess.run([CONTROL, "start"], check=True)
        wait_for("a réplica de volta em uso", lambda: replica_usable(METRICS_A))
        back = metric(METRICS_A, "db_reads_total", {"target": "replica-1"})
        wait_for("leituras na réplica depois de voltar",
                 lambda: metric(METRICS_A, "db_reads_total", {"target": "replica-1"}) > back + 20)
    finally:
        done.set()
        for thread in threads:
            thread.join()
    assert not errors, f"{len(errors)} erros com a réplica parada: {errors[:3]}"
    print(f"réplica parada e reiniciada durante {reads[0]} leituras: nenhum erro; leituras de volta na réplica")


UNSENT_PAIRS = 50


def found_without_position(token_b):
    subprocess.run([CONTROL, "delay", "300"], check=True)
    # The delay shows once a write is held back.
    create(B, token_b, PAIRS + 10)
    time.sleep(0.5)
    missed_before = metric(METRICS_B, "db_replica_skips_total", {"replica": "replica-1", "reason": "not_found"})
    not_found = []
    for number in range(UNSENT_PAIRS):
        identifier, _ = create(B, token_b, PAIRS + 20 + number)
        for path in (f"/proposal/byIdentifier/{identifier}", f"/proposal/{identifier}/history"):
            status, body, _ = call("GET", f"{B}{path}", token_b)
            if status != 200:
                not_found.append((path, status))
    subprocess.run([CONTROL, "delay", "0"], check=True)
    assert not not_found, f"{len(not_found)} leituras sem a posição não acharam a proposta: {not_found[:5]}"
    missed = metric(METRICS_B, "db_replica_skips_total", {"replica": "replica-1", "reason": "not_found"}) - missed_before
    assert missed > 0, "nenhuma leitura foi à réplica atrasada e voltou ao primário (o teste não mediria nada)"
    print(f"{UNSENT_PAIRS} pares criar-e-ler sem Sales-Read-After, réplica 300 ms atrasada: nenhum 404; "
          f"{missed:.0f} leituras relidas no primário")


def late_standby(token_b):
    subprocess.run([CONTROL, "delay", "3000"], check=True)
    # Make the delay show: a write the standby must hold back.
    create(B, token_b, PAIRS + 1)
    wait_for("a instância A deixa a réplica atrasada", lambda: not replica_usable(METRICS_A), seconds=20)

    # B still reads from the late standby: a write is not there without its position…
    identifier, position = create(B, token_b, PAIRS + 2)
    status, body, _ = call("GET", f"{B}/proposal/list?limit=5", token_b)
    assert status == 200 and identifier not in json.dumps(body), \
        "sem a posição, a lista deveria vir da réplica atrasada (o teste não mediria nada)"
    # …and is, at once, with it.
    status, body, _ = call("GET", f"{B}/proposal/list?limit=5", token_b, read_after=position)
    assert status == 200 and identifier in json.dumps(body), ("lista com a posição", status)
    status, body, _ = call("GET", f"{B}/proposal/byIdentifier/{identifier}", token_b, read_after=position)
    assert status == 200, ("rota 7 com a posição", status, body)

    # A sign-out is seen by the next request, whatever the standby's lag.
    token = sign_in(B, "parceiro@demo.com.br", "Parceiro#2026", "PARCEIRO")
    status, _, _ = call("GET", f"{B}/proposal/list?limit=1", token)
    assert status == 200, status
    status, body, _ = call("POST", f"{B}/signout", token)
    assert status in (200, 204), ("signout", status, body)
    status, _, _ = call("GET", f"{B}/proposal/list?limit=1", token)
    assert status == 401, ("o token depois da saída", status)
    status, _, _ = call("GET", f"{A}/proposal/list?limit=1", token)
    assert status == 401, ("o token depois da saída, na outra instância", status)
    subprocess.run([CONTROL, "delay", "0"], check=True)
    print("réplica 3 s atrasada: a saída vista na próxima requisição; a própria escrita lida com a posição; "
          "a instância de 1 s deixou a réplica")


def main():
    token = sign_in(A, "parceiro@demo.com.br", "Parceiro#2026", "PARCEIRO")
    status, body, _ = call("GET", f"{A}/proposal/list?limit=1", token, read_after="nao-e-posicao")
    assert status == 400 and READ_AFTER in json.dumps(body, ensure_ascii=False), ("cabeçalho inválido", status, body)
    identifier = read_your_writes(token)
    standby_stopped_under_reads(token, identifier)
    token_b = sign_in(B, "parceiro@demo.com.br", "Parceiro#2026", "PARCEIRO")
    found_without_position(token_b)
    late_standby(token_b)


if __name__ == "__main__":
    main()
