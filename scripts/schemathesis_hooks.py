"""schemathesis hooks: let every generated valid body reach past the rules the schema cannot say.

A CPF drawn from the schema's pattern fails its check digits, a drawn product code names no
product, a drawn webhook endpoint resolves nowhere, and a drawn identifier names no proposal: so
without help the creation routes answer 4xx to nearly every generated body. For each case drawn
in schemathesis's positive mode (the negative ones are left as drawn, so the refusals keep being
exercised), `before_call` turns what the rules check into values they accept: a valid CPF built
from a digest of the body, the demo catalog's codes, fresh product and billing codes, the
loopback endpoint the run allows, and, for the calls that need something created first (sending
a proposal for signature, the shop's subscription), what an earlier call of the same run created
(`after_call` keeps it). `after_call` also counts each creation route's answers per mode into
`$SCHEMATHESIS_STATS` (one JSON line per run), which `scripts/schemathesis.sh` judges.
"""

import atexit
import collections
import hashlib
import json
import os

import schemathesis

DEMO_CODES = {
    "/proposal/create": (5002, 101),
    "/proposal/create/ecommerce": (5004, 103),
}
DEMO_PRODUCT = 101
SUBJECT_KINDS = ["acesso", "correcao", "anonimizacao", "portabilidade", "eliminacao", "compartilhamento",
                 "revogacao_consentimento"]
CHANNELS = ["telefone", "email", "chat", "carta", "presencial"]

# The routes whose calls create something: their answers are counted per mode.
CREATIONS = {
    "/customer/create", "/proposal/create", "/proposal/create/ecommerce", "/signer", "/hooks", "/product",
    "/billingGroup", "/privacy/requests", "/ecommerce/createCustomer", "/ecommerce/createSetupIntent",
    "/ecommerce/createSubscription",
}

# The members whose rules a drawn value almost never meets (names, dates, phones, a profession
# from the list, a salary in range), with a value that does, per body; the drawn booleans and
# closed lists are kept.
VALID = {
    "cliente": {"nome_completo": "Cliente Gerado", "data_nascimento": "1985-03-10", "nacionalidade": "Brasileira",
                "celular": "(11) 91234-5678", "telefone_fixo": None, "email": "gerado@exemplo.com.br",
                "profissao": "Professora", "salario": 300000, "nome_social": "Ana Gerada", "nome_mae": "Maria Gerada",
                "medicamento_descricao": None},
    "customer": {"fullName": "Cliente Gerado", "birthDate": "1985-03-10", "nationality": "Brasileira",
                 "cellPhone": "(11) 91234-5678", "phone": None, "email": "gerado@exemplo.com.br",
                 "profession": "Professora", "salary": 300000, "socialName": "Ana Gerada",
                 "motherName": "Maria Gerada", "medicationDescription": None},
}
# Where a rule needs every member of an address (a CEP, a street, a number, a neighbourhood, a city).
ADDRESSES = {
    "endereco": {"cep": "01310100", "endereco": "Avenida Paulista", "numero": 1000, "bairro": "Bela Vista",
                 "cidade": "São Paulo", "estado": "SP", "complemento": None},
    "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000",
                "neighborhood": "Bela Vista", "city": "São Paulo", "state": "SP", "complement": None},
}


class Run:
    """What this run created, for the calls that need it, and how each creation answered."""

    def __init__(self):
        self.drawn = 0
        self.unsent = collections.deque()  # route 5's proposals: (identificador, id_cliente)
        self.shop_cpfs = collections.deque()  # route 6's buyers not yet on the platform
        self.on_platform = collections.deque()  # buyers with a platform customer, no card yet
        self.with_card = set()  # buyers with a saved card
        self.unsubscribed = collections.deque()  # route 6's proposals: (identificador, cpf)
        self.counts = collections.Counter()
        self.modes = {}

    def seed(self, body) -> int:
        """A number from the body and the count of cases so far: distinct bodies, distinct values."""
        self.drawn += 1
        text = json.dumps(body, sort_keys=True, default=str) + f"#{self.drawn}"
        return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


RUN = Run()


def valid_cpf(seed: int) -> str:
    digits = [int(c) for c in str(seed)[:9].ljust(9, "7")]
    if len(set(digits)) == 1:
        digits[0] = (digits[0] + 1) % 10
    for weight in (10, 11):
        total = sum(d * (weight - i) for i, d in enumerate(digits))
        rest = total % 11
        digits.append(0 if rest < 2 else 11 - rest)
    return "".join(map(str, digits))


def repair_person(body: dict, key: str, cpf_key: str) -> None:
    person = body.get(key)
    if not isinstance(person, dict):
        return
    person[cpf_key] = valid_cpf(RUN.seed(body))
    person.update(VALID[key])
    for member, address in ADDRESSES.items():
        if member in body or key == "customer" and member == "address":
            body[member] = dict(address)


def repair(path: str, body: dict) -> None:
    if path == "/customer/create":
        repair_person(body, "cliente", "cpf")
    elif path in DEMO_CODES:
        repair_person(body, "customer", "cpf")
        body["billingCode"], body["productCode"] = DEMO_CODES[path]
        # A partner to credit must exist: the drawn one does not.
        body.pop("partnerId", None)
        if path == "/proposal/create":
            # The payment its type needs (the schema cannot say "required when").
            body["typeOfPayments"] = "DESCONTO EM FOLHA"
            body["discountOnSheet"] = {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"}
    elif path == "/hooks":
        # A host that resolves, inside the CIDR the run allows (nothing listens there).
        body["endpoint"] = os.environ.get("SCHEMATHESIS_HOOK_ENDPOINT", "http://127.0.0.1:9/webhooks")
    elif path == "/product":
        # Codes of their own (each is unique), a value in range, banks with a name.
        body["codigo_produto"] = 100_000 + RUN.seed(body) % 2_000_000_000
        body["codigo_integracao"] = 100_000 + RUN.seed(body) % 2_000_000_000
        if isinstance(body.get("valor"), int):
            body["valor"] = body["valor"] % 100_000_000
        for bank in body.get("bank") or []:
            if isinstance(bank, dict):
                bank["nome"] = "Banco Gerado"
    elif path == "/billingGroup":
        body["codigo_faturamento"] = 100_000 + RUN.seed(body) % 2_000_000_000
        body["codigo_produto"] = DEMO_PRODUCT
    elif path == "/privacy/requests":
        seed = RUN.seed(body)
        body["cpf"] = valid_cpf(seed)
        body["kind"] = SUBJECT_KINDS[seed % len(SUBJECT_KINDS)]
        body["channel"] = CHANNELS[seed % len(CHANNELS)]
    elif path == "/signer" and RUN.unsent:
        identifier, customer = RUN.unsent.popleft()
        body.update({"identifier": identifier, "customerId": customer})
    elif path == "/ecommerce/createCustomer" and RUN.shop_cpfs:
        body["cpf"] = RUN.shop_cpfs[0]
    elif path == "/ecommerce/createSetupIntent" and RUN.on_platform:
        body["cpf"] = RUN.on_platform[0]
    elif path == "/ecommerce/createSubscription":
        ready = next((p for p in RUN.unsubscribed if p[1] in RUN.with_card), None)
        if ready:
            body["identifier"] = ready[0]


def mode_of(case) -> str:
    meta = case.meta
    return str(meta.generation.mode) if meta is not None else "positive"


@schemathesis.hook
def before_call(ctx, case, kwargs):
    path = case.operation.path
    mode = mode_of(case)
    RUN.modes[id(case)] = mode
    if mode == "positive" and case.operation.method.upper() == "POST" and isinstance(case.body, dict):
        repair(path, case.body)
        # A key drawn twice for two bodies is refused (422, as it should be): a valid call's key is
        # its own.
        if case.headers and "Idempotency-Key" in case.headers:
            case.headers["Idempotency-Key"] = f"gerada-{RUN.seed(case.body):x}"


@schemathesis.hook
def after_call(ctx, case, response):
    path = case.operation.path
    mode = RUN.modes.pop(id(case), mode_of(case))
    if path not in CREATIONS or case.operation.method.upper() != "POST":
        return
    ok = 200 <= response.status_code < 300
    RUN.counts[(path, mode, "2xx" if ok else "outras")] += 1
    if not ok:
        refused(path, mode, response)
        return
    try:
        answer = json.loads(response.content)
    except ValueError:
        return
    body = case.body if isinstance(case.body, dict) else {}
    record = (answer.get("document") or [{}])[0] if isinstance(answer, dict) else {}
    if path == "/proposal/create":
        RUN.unsent.append((record.get("identificador"), record.get("id_cliente")))
    elif path == "/proposal/create/ecommerce":
        cpf = (body.get("customer") or {}).get("cpf")
        RUN.shop_cpfs.append(cpf)
        RUN.unsubscribed.append((record.get("identificador"), "".join(ch for ch in str(cpf) if ch.isdigit())))
    elif path == "/ecommerce/createCustomer":
        cpf = body.get("cpf")
        if cpf in RUN.shop_cpfs:
            RUN.shop_cpfs.remove(cpf)
        RUN.on_platform.append(cpf)
    elif path == "/ecommerce/createSetupIntent":
        cpf = body.get("cpf")
        if cpf in RUN.on_platform:
            RUN.on_platform.remove(cpf)
        RUN.with_card.add("".join(ch for ch in str(cpf) if ch.isdigit()))
    elif path == "/ecommerce/createSubscription":
        RUN.unsubscribed = collections.deque(p for p in RUN.unsubscribed if p[0] != body.get("identifier"))


def refused(path, mode, response):
    """`$SCHEMATHESIS_REFUSALS` keeps why a body generated as valid was refused: the status, the
    code and the fields named (never the values)."""
    target = os.environ.get("SCHEMATHESIS_REFUSALS")
    if not target or mode != "positive":
        return
    try:
        answer = json.loads(response.content)
    except ValueError:
        answer = {}
    fields = [f"{e.get('field')}:{e.get('code')}" for e in answer.get("errors") or [] if isinstance(e, dict)]
    with open(target, "a", encoding="utf-8") as out:
        out.write(f"{path} {response.status_code} {answer.get('code')} {' '.join(fields)}\n")


@atexit.register
def write_counts():
    target = os.environ.get("SCHEMATHESIS_STATS")
    if not target or not RUN.counts:
        return
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps([[*key, count] for key, count in RUN.counts.items()]) + "\n")
