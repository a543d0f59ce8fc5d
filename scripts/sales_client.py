"""What the scripts that drive a running service share: one HTTP call, the demo users' sign-in,
valid CPFs and a route-5 body (the partner's payroll-discount proposal)."""
import json
import urllib.error
import urllib.request


def request(method, url, token=None, body=None, headers=None):
    """One call: (status, JSON body or None, response headers). Errors are answers, not raised."""
    data = None if body is None else json.dumps(body).encode()
    outgoing = urllib.request.Request(url, data=data, method=method)
    outgoing.add_header("content-type", "application/json")
    if token:
        outgoing.add_header("authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        outgoing.add_header(name, value)
    try:
        with urllib.request.urlopen(outgoing, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


def sign_in(base, email, password, application):
    status, body, _ = request("POST", f"{base}/signin", body={"email": email, "password": password,
                                                             "aplicacao": application})
    assert status == 200, (status, body)
    return body["token"]


def cpf(n):
    """The valid CPF whose first nine digits are `n`."""
    digits = [int(c) for c in f"{n:09d}"]
    for length in (9, 10):
        total = sum(d * (length + 1 - i) for i, d in enumerate(digits[:length]))
        digits.append(0 if total % 11 < 2 else 11 - total % 11)
    return "".join(map(str, digits))


def proposal_body(customer_cpf):
    """Route 5's body: a payroll-discount proposal for the customer of that CPF."""
    return {
        "billingCode": 5002, "productCode": 101, "typeOfPayments": "DESCONTO EM FOLHA", "shippingType": "whatsapp",
        "customer": {"fullName": "Maria da Silva", "cpf": customer_cpf, "birthDate": "1990-05-15",
                     "gender": "Feminino", "maritalStatus": "Casado", "nationality": "Brasileira",
                     "cellPhone": "(11) 91234-5678", "email": "maria@exemplo.com.br", "profession": "Professora",
                     "salary": 141200},
        "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000",
                    "neighborhood": "Bela Vista", "city": "São Paulo", "state": "SP"},
        "discountOnSheet": {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"},
    }
