-- POST /signin with the demo representative.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"parceiro@demo.com.br","password":"Parceiro#2026","aplicacao":"PARCEIRO"}'
