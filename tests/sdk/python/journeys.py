"""The partner's and the shop's journeys through the Python client generated from the service's
own OpenAPI document (scripts/sdk-journeys.sh): every call goes through the generated functions
and models, and every check reads the parsed answer, not only its status."""

import base64
import json
import sys
import urllib.request

from sales_client import AuthenticatedClient, Client
from sales_client.api.aceitação import proposal_answer_pending, proposal_request_documents
from sales_client.api.assinatura import (
    proposal_certificate,
    proposal_change_status,
    proposal_document,
    signature_send,
    signature_sign_link,
)
from sales_client.api.autenticação import auth_sign_in
from sales_client.api.catálogo import billing_group_list, product_list
from sales_client.api.clientes import customer_create
from sales_client.api.e_commerce import (
    ecommerce_create_customer,
    ecommerce_create_setup_intent,
    ecommerce_create_subscription,
)
from sales_client.api.eventos import hook_create, hook_deliveries, hook_list
from sales_client.api.propostas import (
    proposal_create,
    proposal_create_ecommerce,
    proposal_get,
    proposal_history,
    proposal_list,
)
from sales_client.models import (
    AnswerBody,
    Application,
    CpfBody,
    HookBody,
    PendingBody,
    ProposalBody,
    ProposalStatus,
    RegistrationBody,
    ShopProposalBody,
    SignerBody,
    SignInBody,
    StatusChangeBody,
    SubscriptionBody,
)


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def parsed(response, status):
    """The parsed answer of a call that must have answered `status`."""
    check(response.status_code == status, f"esperado {status}, veio {response.status_code}: {response.content[:300]!r}")
    return response.parsed


def cpf(n):
    """A valid CPF from a number, as the black-box tests make them."""
    digits = [int(c) for c in f"{100_000_000 + n % 800_000_000:09d}"]
    for _ in range(2):
        weight = len(digits) + 1
        rest = sum(d * (weight - i) for i, d in enumerate(digits)) * 10 % 11
        digits.append(0 if rest == 10 else rest)
    return "".join(map(str, digits))


# The contract version of the document this SDK was generated from (its info.x-sales-version):
# every request names it, as a partner's SDK pins the version it was written against.
VERSION = {}


def sign_in(base, email, password, application):
    answer = parsed(
        auth_sign_in.sync_detailed(
            client=Client(base_url=base, headers=VERSION),
            body=SignInBody(email=email, password=password, aplicacao=application),
        ),
        200,
    )
    check(answer.token.count(".") == 2, "um JWT")
    check(answer.current_refresh_token, "um refresh token")
    return AuthenticatedClient(base_url=base, token=answer.token, headers=VERSION)


def proposal_body(document):
    return ProposalBody.from_dict(
        {
            "billingCode": 5002, "productCode": 101, "typeOfPayments": "DESCONTO EM FOLHA", "shippingType": "whatsapp",
            "customer": {"fullName": "Maria da Silva", "cpf": document, "birthDate": "1990-05-15", "gender": "Feminino",
                         "maritalStatus": "Casado", "nationality": "Brasileira", "cellPhone": "(11) 91234-5678",
                         "email": "maria@exemplo.com.br", "profession": "Professora", "salary": 141200},
            "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000",
                        "neighborhood": "Bela Vista", "city": "São Paulo", "state": "SP"},
            "discountOnSheet": {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"},
        }
    )


def partner(base):
    client = sign_in(base, "parceiro@demo.com.br", "Parceiro#2026", Application.PARCEIRO)

    groups = parsed(billing_group_list.sync_detailed(client=client), 200)
    check(any(g.codigo_faturamento == 5002 for g in groups.document), "o grupo 5002 do catálogo demo")
    products = parsed(product_list.sync_detailed(client=client), 200)
    check(any(p.codigo_produto == 101 for p in products.document), "o produto 101 do catálogo demo")

    registered = parsed(
        customer_create.sync_detailed(
            client=client,
            body=RegistrationBody.from_dict(
                {
                    "cliente": {"nome_completo": "Maria da Silva", "cpf": cpf(501), "data_nascimento": "1990-05-15T00:00:00.000Z",
                                "sexo": "Feminino", "estado_civil": "Solteiro", "nacionalidade": "Brasileira",
                                "celular": "(11) 91234-5678", "telefone_fixo": "(11) 3123-4567",
                                "email": "maria@exemplo.com.br", "profissao": "Professora", "salario": 0, "trabalhando": True,
                                "servidor_publico": False, "pep": False, "afastado": False, "medicamento": False,
                                "e_analfabeto": False},
                    "endereco": {"cep": "01310100", "endereco": "Avenida Paulista", "numero": 1000, "bairro": "Bela Vista",
                                 "cidade": "São Paulo", "estado": "SP"},
                }
            ),
        ),
        201,
    )
    check([r.cpf for r in registered] == [cpf(501)], "o cliente cadastrado")

    # A hook first, so that the sending below is in its log.
    hook = parsed(
        hook_create.sync_detailed(
            client=client,
            body=HookBody.from_dict(
                {"events": ["ALTERAÇÃO_STATUS", "PROPOSTA_ENVIADA"], "endpoint": "http://127.0.0.1:9/eventos", "status": "ATIVO"}
            ),
        ),
        200,
    ).data
    check(hook.secret.startswith("whsec_"), "o segredo da assinatura de eventos")
    hooks = parsed(hook_list.sync_detailed(client=client), 200)
    check([h.uuid for h in hooks.data.subscriptions] == [hook.uuid], "a assinatura listada")

    identifiers = []
    for n in (502, 503):
        created = parsed(proposal_create.sync_detailed(client=client, body=proposal_body(cpf(n))), 201)
        record = created.document[0]
        check(record.status == ProposalStatus.NOVO, "uma proposta nova")
        identifiers.append(record.identificador)
    first, second = identifiers

    detail = parsed(proposal_get.sync_detailed(first, client=client), 200).data
    check(detail.proposal.identifier == first, "a proposta pelo identificador")
    check(detail.customer.cpf == cpf(502), "o cliente da proposta")
    check(detail.proposal.value > 0, "o valor da proposta")

    page = parsed(proposal_list.sync_detailed(client=client, limit=1), 200)
    check([r.identificador for r in page.document] == [second], "a mais nova primeiro")
    cursor = page.data.next_cursor
    check(isinstance(cursor, str), "um cursor para a próxima página")
    after = parsed(proposal_list.sync_detailed(client=client, limit=1, cursor=cursor), 200)
    check([r.identificador for r in after.document] == [first], "a segunda página")

    history = parsed(proposal_history.sync_detailed(first, client=client), 200).data
    check(history.entries[0].action == "criacao", "a criação no histórico")

    document = proposal_document.sync_detailed(first, client=client)
    check(document.status_code == 200 and document.content.startswith(b"%PDF"), "o documento em PDF")

    sent = parsed(
        signature_send.sync_detailed(client=client, body=SignerBody(customer_id=detail.proposal.customer_id, identifier=first)),
        200,
    )
    check(sent.data.sign_url.startswith(f"{base}/sandbox/sign/"), "o link de assinatura")
    link = parsed(signature_sign_link.sync_detailed(client=client, identifier=first), 200)
    check(link.data.sign_url == sent.data.sign_url, "o mesmo link")
    check(parsed(proposal_get.sync_detailed(first, client=client), 200).data.proposal.status == ProposalStatus.AGUARDANDO_ASSINATURA, "enviada")

    log = parsed(hook_deliveries.sync_detailed(hook.uuid, client=client), 200)
    kinds = sorted(str(d.type_) for d in log.document)
    check(kinds == ["ALTERAÇÃO_STATUS", "PROPOSTA_ENVIADA"], f"as entregas do envio: {kinds}")

    after_the_signature(base, client, first)


def sandbox_sign(base, office, identifier):
    """Every party signs in the signature provider's sandbox (its page's form, not the contract)."""
    sign = parsed(proposal_get.sync_detailed(identifier, client=office), 200).data.sign
    for key in (sign.client_key, sign.association_key, sign.federation_key, sign.enterprise_key):
        request = urllib.request.Request(f"{base}/sandbox/sign/{key}", method="POST", headers={"accept": "application/json"})
        with urllib.request.urlopen(request) as answer:
            check(answer.status == 200, "a parte assinou")


def after_the_signature(base, client, identifier):
    """Issue 45: the acceptance clock, a request for documents answered with a file, the
    decision, and the certificate."""
    office = sign_in(base, "backoffice@demo.com.br", "Backoffice#2026", Application.BACKOFFICE)
    sandbox_sign(base, office, identifier)
    detail = parsed(proposal_get.sync_detailed(identifier, client=client), 200).data
    check(detail.proposal.status == ProposalStatus.EM_ANÁLISE, "assinada, em análise")
    check(detail.acceptance.deadline > detail.acceptance.received_at, "o prazo de aceitação depois do recebimento")
    check(detail.acceptance.pending == [], "nenhum pedido de documentos")

    early = proposal_certificate.sync_detailed(identifier, client=client)
    check(early.status_code == 409 and json.loads(early.content)["code"] == "proposta_nao_aceita", "sem certificado antes do aceite")

    opened = parsed(
        proposal_request_documents.sync_detailed(
            identifier,
            client=office,
            body=PendingBody.from_dict({"items": ["Comprovante de residência"], "note": "Frente e verso"}),
        ),
        201,
    ).data
    suspended = parsed(proposal_get.sync_detailed(identifier, client=client), 200).data.acceptance
    check(suspended.suspended_since == opened.suspended_since, "o prazo suspenso desde o pedido")
    check([p.id for p in suspended.pending] == [opened.id], "o pedido visto pelo vendedor")

    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    answered = parsed(
        proposal_answer_pending.sync_detailed(
            identifier,
            opened.id,
            client=client,
            body=AnswerBody.from_dict(
                {"note": "Segue o comprovante", "files": [{"name": "comprovante.pdf", "content": base64.b64encode(pdf).decode()}]}
            ),
        ),
        200,
    ).data
    resumed = parsed(proposal_get.sync_detailed(identifier, client=client), 200).data.acceptance
    check(resumed.deadline == answered.deadline and not resumed.suspended_since, "o prazo retomado, adiado")
    files = resumed.pending[0].answer.files
    check([(f.name, f.content_type, f.size) for f in files] == [("comprovante.pdf", "application/pdf", len(pdf))], "o arquivo")

    decided = proposal_change_status.sync_detailed(
        identifier,
        client=office,
        body=StatusChangeBody.from_dict({"status": "APROVADO", "reason": "Documentos conferidos"}),
    )
    check(decided.status_code == 200, f"aprovada: {decided.content[:300]!r}")
    certificate = proposal_certificate.sync_detailed(identifier, client=client)
    check(certificate.status_code == 200 and certificate.content.startswith(b"%PDF"), "o certificado em PDF")


def shop(base):
    client = sign_in(base, "ecommerce@demo.com.br", "Ecommerce#2026", Application.ECOMMERCE)
    document = cpf(601)
    created = parsed(
        proposal_create_ecommerce.sync_detailed(
            client=client,
            body=ShopProposalBody.from_dict(
                {
                    "billingCode": 5004, "productCode": 103, "shippingType": "sms",
                    "customer": {"fullName": "João Souza", "cpf": document, "birthDate": "1985-03-10", "gender": "Masculino",
                                 "cellPhone": "(21) 99876-5432", "email": "joao@exemplo.com.br"},
                    "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro",
                                "city": "Rio de Janeiro", "state": "RJ"},
                }
            ),
        ),
        201,
    )
    identifier = created.document[0].identificador
    customer = parsed(ecommerce_create_customer.sync_detailed(client=client, body=CpfBody(cpf=document)), 201)
    check(customer.document[0].customer_id.startswith("cus_"), "o cliente na plataforma")
    intent = parsed(ecommerce_create_setup_intent.sync_detailed(client=client, body=CpfBody(cpf=document)), 200)
    check(intent.document[0].client_secret.startswith(intent.document[0].id + "_secret_"), "o segredo do SetupIntent")
    subscription = parsed(
        ecommerce_create_subscription.sync_detailed(client=client, body=SubscriptionBody(identifier=identifier)), 201
    )
    check(subscription.document[0].status == "active", "a assinatura ativa")
    detail = parsed(proposal_get.sync_detailed(identifier, client=client), 200).data
    check(detail.proposal.status == ProposalStatus.EM_ANÁLISE, "paga, em análise")


if __name__ == "__main__":
    base_url = sys.argv[1]
    VERSION["Sales-Version"] = sys.argv[2]
    partner(base_url)
    print("  jornada do parceiro (com aceitação e certificado): ok")
    shop(base_url)
    print("  jornada da loja: ok")
