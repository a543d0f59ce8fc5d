// The partner's and the shop's journeys through openapi-fetch over the types openapi-typescript
// generates from the service's own OpenAPI document (scripts/sdk-journeys.sh): each request and
// answer is typed by the contract (tsc --noEmit fails on a mismatch), and each check reads the
// parsed answer, not only its status.

import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

const base = process.argv[2] ?? "http://127.0.0.1:8080";
// The contract version of the document these types were generated from (its info.x-sales-version):
// every request names it, as a partner's SDK pins the version it was written against.
const version = { "Sales-Version": process.argv[3] ?? "2026-12-01" };

function check(condition: unknown, what: string): asserts condition {
  if (!condition) {
    throw new Error(`falhou: ${what}`);
  }
}

/** A valid CPF from a number, as the black-box tests make them. */
function cpf(n: number): string {
  const digits = String(100_000_000 + (n % 800_000_000)).padStart(9, "0").split("").map(Number);
  for (let round = 0; round < 2; round++) {
    const weight = digits.length + 1;
    const rest = (digits.reduce((sum, d, i) => sum + d * (weight - i), 0) * 10) % 11;
    digits.push(rest === 10 ? 0 : rest);
  }
  return digits.join("");
}

async function signIn(email: string, password: string, aplicacao: "PARCEIRO" | "ECOMMERCE" | "BACKOFFICE") {
  const { data, response } = await createClient<paths>({ baseUrl: base, headers: version }).POST("/signin", {
    body: { email, password, aplicacao },
  });
  check(response.status === 200 && data, `entrada de ${email}: ${response.status}`);
  check(data.token.split(".").length === 3, "um JWT");
  return createClient<paths>({ baseUrl: base, headers: { ...version, Authorization: `Bearer ${data.token}` } });
}

async function partner() {
  const client = await signIn("parceiro@demo.com.br", "Parceiro#2026", "PARCEIRO");

  const groups = await client.GET("/billingGroup/list");
  check(groups.data?.document.some((g) => g.codigo_faturamento === 5002), "o grupo 5002 do catálogo demo");
  const products = await client.GET("/product/list");
  check(products.data?.document.some((p) => p.codigo_produto === 101), "o produto 101 do catálogo demo");

  const hook = await client.POST("/hooks", {
    body: { events: ["ALTERAÇÃO_STATUS", "PROPOSTA_ENVIADA"], endpoint: "http://127.0.0.1:9/eventos", status: "ATIVO" },
  });
  check(hook.data && hook.data.data.secret.startsWith("whsec_"), "a assinatura de eventos");
  const uuid = hook.data.data.uuid;

  const identifiers: string[] = [];
  for (const n of [702, 703]) {
    const created = await client.POST("/proposal/create", {
      body: {
        billingCode: 5002, productCode: 101, typeOfPayments: "DESCONTO EM FOLHA", shippingType: "whatsapp",
        customer: {
          fullName: "Maria da Silva", cpf: cpf(n), birthDate: "1990-05-15", gender: "Feminino", maritalStatus: "Casado",
          nationality: "Brasileira", cellPhone: "(11) 91234-5678", email: "maria@exemplo.com.br",
          profession: "Professora", salary: 141200,
        },
        address: {
          zipCode: "01310100", address: "Avenida Paulista", number: "1000", neighborhood: "Bela Vista",
          city: "São Paulo", state: "SP",
        },
        discountOnSheet: { number: "1234567890", specie: 41, type: "BENEFÍCIO" },
      },
    });
    check(created.response.status === 201, `proposta criada: ${created.response.status}`);
    const record = created.data?.document[0];
    check(record?.status === "NOVO", "uma proposta nova");
    identifiers.push(record.identificador);
  }
  const [first, second] = identifiers;
  check(first && second, "duas propostas");

  const detail = await client.GET("/proposal/byIdentifier/{identificador}", { params: { path: { identificador: first } } });
  check(detail.data?.data.proposal.identifier === first, "a proposta pelo identificador");
  check(detail.data.data.customer.cpf === cpf(702), "o cliente da proposta");

  const page = await client.GET("/proposal/list", { params: { query: { limit: 1 } } });
  check(page.data?.document[0]?.identificador === second, "a mais nova primeiro");
  const cursor = page.data.data.nextCursor;
  check(typeof cursor === "string", "um cursor");
  const after = await client.GET("/proposal/list", { params: { query: { limit: 1, cursor } } });
  check(after.data?.document[0]?.identificador === first, "a segunda página");

  const history = await client.GET("/proposal/{identificador}/history", { params: { path: { identificador: first } } });
  check(history.data?.data.entries[0]?.action === "criacao", "a criação no histórico");

  const pdf = await client.GET("/proposal/{identificador}/document", {
    params: { path: { identificador: first } },
    parseAs: "arrayBuffer",
  });
  check(pdf.data && new TextDecoder().decode(pdf.data.slice(0, 4)) === "%PDF", "o documento em PDF");

  const sent = await client.POST("/signer", {
    body: { customerId: detail.data.data.proposal.customerId, identifier: first },
  });
  check(sent.data && sent.data.data.signUrl.startsWith(`${base}/sandbox/sign/`), "o link de assinatura");
  const link = await client.GET("/signer/signLink", { params: { query: { identifier: first } } });
  check(link.data?.data.signUrl === sent.data.data.signUrl, "o mesmo link");

  const log = await client.GET("/hooks/{uuid}/deliveries", { params: { path: { uuid } } });
  const kinds = (log.data?.document ?? []).map((d) => d.type).sort();
  check(JSON.stringify(kinds) === JSON.stringify(["ALTERAÇÃO_STATUS", "PROPOSTA_ENVIADA"]), `as entregas: ${kinds}`);
}

async function shop() {
  const client = await signIn("ecommerce@demo.com.br", "Ecommerce#2026", "ECOMMERCE");
  const document = cpf(801);
  const created = await client.POST("/proposal/create/ecommerce", {
    body: {
      billingCode: 5004, productCode: 103, shippingType: "sms",
      customer: {
        fullName: "João Souza", cpf: document, birthDate: "1985-03-10", gender: "Masculino",
        cellPhone: "(21) 99876-5432", email: "joao@exemplo.com.br",
      },
      address: {
        zipCode: "20040002", address: "Rua da Assembleia", number: 10, neighborhood: "Centro",
        city: "Rio de Janeiro", state: "RJ",
      },
    },
  });
  const identifier = created.data?.document[0]?.identificador;
  check(identifier, `proposta da loja: ${created.response.status}`);
  const customer = await client.POST("/ecommerce/createCustomer", { body: { cpf: document } });
  check(customer.data?.document[0]?.customerId.startsWith("cus_"), "o cliente na plataforma");
  const intent = await client.POST("/ecommerce/createSetupIntent", { body: { cpf: document } });
  const setup = intent.data?.document[0];
  check(setup?.clientSecret.startsWith(`${setup.id}_secret_`), "o segredo do SetupIntent");
  const subscription = await client.POST("/ecommerce/createSubscription", { body: { identifier } });
  check(subscription.data?.document[0]?.status === "active", "a assinatura ativa");
  const detail = await client.GET("/proposal/byIdentifier/{identificador}", { params: { path: { identificador: identifier } } });
  check(detail.data?.data.proposal.status === "EM ANÁLISE", "paga, em análise");

  // Issue 45: within the 7 days of regret a cancellation is refused and the regret offered; the
  // regret returns every payment, shown in route 7's refunds.
  const path = { params: { path: { identificador: identifier } } };
  const cancelled = await client.POST("/proposal/{identificador}/cancel", { ...path, body: { reason: "Desistiu" } });
  check(cancelled.response.status === 409 && cancelled.error?.code === "cancelamento_nao_permitido", "o arrependimento prevalece");
  const withdrawn = await client.POST("/proposal/{identificador}/withdraw", { ...path, body: { reason: "Desistiu" } });
  check(withdrawn.response.status === 200 && withdrawn.data?.data.protocol, `arrependimento: ${withdrawn.response.status}`);
  const after = await client.GET("/proposal/byIdentifier/{identificador}", path);
  check(after.data?.data.proposal.status === "CANCELADO", "cancelada pelo arrependimento");
  const refunds = after.data.data.refunds ?? [];
  check(refunds.length === 1 && refunds[0]?.reason === "ARREPENDIMENTO" && refunds[0].amount > 0, "o reembolso na rota 7");
}

await partner();
console.log("  jornada do parceiro: ok");
await shop();
console.log("  jornada da loja (com arrependimento e reembolso): ok");
