"""schemathesis hooks: let generated proposal and customer bodies reach past the format checks.

A CPF drawn from the schema's pattern fails its check digits, and a drawn product code names no
product, so without help routes 3, 5 and 6 answer 400 to nearly every generated body. For half of
the bodies (decided by the drawn CPF itself, so the run stays reproducible), this turns the CPF
into a valid one built from a digest of the drawn body, the name, birth date, phone, e-mail and salary into
values the rules accept, and the codes into the demo catalog's; the other half is left as drawn, so the refusals keep being exercised.
"""

import hashlib
import json

import schemathesis

DEMO_CODES = {
    "/proposal/create": (5002, 101),
    "/proposal/create/ecommerce": (5004, 103),
}


def valid_cpf(drawn: str) -> str:
    digits = [int(c) for c in "".join(ch for ch in drawn if ch.isdigit())[:9].ljust(9, "7")]
    if len(set(digits)) == 1:
        digits[0] = (digits[0] + 1) % 10
    for weight in (10, 11):
        total = sum(d * (weight - i) for i, d in enumerate(digits))
        rest = total % 11
        digits.append(0 if rest < 2 else 11 - rest)
    return "".join(map(str, digits))


# The members whose rules a drawn value almost never meets, with a value that does, per body.
VALID = {
    "cliente": {"nome_completo": "Cliente Gerado", "data_nascimento": "1985-03-10",
                "celular": "(11) 91234-5678", "email": "gerado@exemplo.com.br", "salario": 300000},
    "customer": {"fullName": "Cliente Gerado", "birthDate": "1985-03-10",
                 "cellPhone": "(11) 91234-5678", "email": "gerado@exemplo.com.br", "salary": 300000},
}


def repair(body: dict, key: str, cpf_key: str) -> bool:
    person = body.get(key)
    drawn = person.get(cpf_key) if isinstance(person, dict) else None
    if not isinstance(drawn, str) or not drawn or ord(drawn[-1]) % 2:
        return False
    # From the whole drawn body, so that distinct bodies get distinct customers (the one-open-
    # proposal rule would refuse the second one with the same CPF).
    seed = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
    person[cpf_key] = valid_cpf(str(int(seed[:12], 16)))
    for member, value in VALID[key].items():
        if member in person:
            person[member] = value
    return True


@schemathesis.hook
def map_body(ctx, body):
    if not isinstance(body, dict):
        return body
    path = ctx.operation.path
    if path == "/customer/create":
        repair(body, "cliente", "cpf")
    elif path in DEMO_CODES and repair(body, "customer", "cpf"):
        body["billingCode"], body["productCode"] = DEMO_CODES[path]
        if path == "/proposal/create":
            # The payment its type needs (the schema cannot say "required when").
            body["typeOfPayments"] = "DESCONTO EM FOLHA"
            body["discountOnSheet"] = {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"}
    return body
