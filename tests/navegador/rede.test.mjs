// Os widgets na rede que o estudante tem: a rede cai antes ou no meio do download do Python
// (mensagem em português, nada desativado, e a carga volta sozinha quando a rede volta), e a
// página vista uma vez abre sem rede, widget incluído (o service worker, offline.js).
//
// "A rede cai" é o servidor que cai (as conexões fecham; srv.cair) e o navegador que fica
// offline (ctx.setOffline: dispara os eventos offline/online da página). O preparo comum:
// widgets_comum.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  HTML, ESPERA, navegador, abrir, pronto, sossegar, textoSaida, semErrosNossos, servir, launchComPerfil, rolarAte,
  memoriaGuardada, umaPagina, nomeDe,
} from "./widgets_comum.mjs";

// O texto do navegador, em inglês, que nunca pode chegar ao leitor.
const INGLES = /Failed to fetch|network error|NetworkError|TypeError|ERR_|Uncaught/i;
const estado = (pg) => pg.evaluate(() => globalThis.livroWidgets?.estado());

async function esperarFalha(pg, w) {
  await pg.waitForFunction(() => globalThis.livroWidgets?.estado() === "falhou", null, { timeout: ESPERA });
  const status = await w.locator(".lw-status").textContent();
  assert.equal(await w.locator(".lw-status").getAttribute("data-tipo"), "erro");
  assert.doesNotMatch(status, INGLES, `texto do navegador na mensagem: ${status}`);
  assert.doesNotMatch(status, /Recarregue/, "a mensagem manda recarregar, mas a página tenta de novo sozinha");
  // nada desativado: os controles seguem ativos, e há «Tentar de novo»
  assert.equal(await w.locator("form input, form button").first().isEnabled(), true);
  assert.equal(await w.locator(".lw-tentar").isVisible(), true);
  return status;
}

// Depois da falha: a rede volta (servidor de pé e o evento online) e o widget fica pronto
// sozinho, sem clique; então responde ao leitor.
async function voltaSozinha(ctx, srv, pg, w) {
  srv.voltar();
  await ctx.setOffline(false);
  await pronto(pg, w);
  assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.ultimaTentativa), "online");
  assert.equal(await w.locator(".lw-tentar").isVisible(), false);
  await w.locator("input[name=texto]").fill("o gato subiu");
  await sossegar(w);
  assert.match(await textoSaida(w), /ids = \[0, 2, 4, 5\] · 4 tokens/);
}

test("rede cortada antes do download: mensagem em português, controles ativos, e a carga volta sozinha com a rede", async () => {
  const srv = await servir(HTML);
  const ctx = await navegador.newContext();
  try {
    // no primeiro uso (nada baixa antes do clique) e sem o service worker (o caminho sem cópia)
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { modo: "uso", offline: false }; });
    const { pg, w, erros } = await abrir("tokens", { ctx, srv });
    await pg.waitForLoadState("load");
    srv.cair();
    await ctx.setOffline(true);
    await w.locator("button[type=submit]").click();
    const status = await esperarFalha(pg, w);
    assert.match(status, /Sem conexão/);
    assert.match(status, /tenta de novo sozinha quando a conexão voltar/);
    await voltaSozinha(ctx, srv, pg, w);
    semErrosNossos(erros.filter((e) => !/Failed to load resource|net::ERR_/.test(e)));
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

test("rede cortada no meio do download: diz quanto chegou, em português; com a rede de volta continua do que já chegou", async () => {
  const srv = await servir(HTML, { taxa: 400 * 1024 });
  const ctx = await navegador.newContext();
  try {
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { offline: false }; });
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx, srv });
    await rolarAte(w);
    await pg.waitForFunction(() => {
      const p = globalThis.livroWidgets?.medidas.progresso.at(-1);
      return p && p.rede > 0.2 * p.total;
    }, null, { timeout: 60_000 });
    srv.cair();
    await ctx.setOffline(true);
    const status = await esperarFalha(pg, w);
    assert.match(status, /A conexão caiu no meio do download do Python \(chegaram [\d,]+ de [\d,]+ MiB\)/);
    const antes = srv.enviados.bytes;
    const total = await pg.evaluate(() => globalThis.livroWidgets.medidas.progresso.at(-1).total);
    await voltaSozinha(ctx, srv, pg, w);
    // o que chegou inteiro ficou no Cache API: a carga da volta leu parte dele de lá, e a rede
    // mandou menos que o runtime inteiro
    const depois = srv.enviados.bytes - antes;
    const bytes = await pg.evaluate(() => globalThis.livroWidgets.medidas.bytes);
    assert.ok(bytes.cache > 0, "a carga da volta não usou nada do que já tinha chegado");
    assert.ok(depois < total, `depois da volta vieram ${depois} bytes de ${total}: baixou tudo de novo`);
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

test("página vista uma vez abre sem rede, widget incluído (o navegador fechado e aberto de novo)", async () => {
  const perfil = mkdtempSync(join(tmpdir(), "livro-offline-"));
  const srv = await servir(HTML);
  const pagina = "tokens";
  let ctx = null;
  try {
    ctx = await launchComPerfil(perfil);
    const a = await abrir(pagina, { ctx, srv });
    await pronto(a.pg, a.w);
    assert.ok(await memoriaGuardada(a.pg) > 1e6, "o worker não guardou a memória do Python");
    // o service worker registrado, controlando, e com esta página e o worker guardados
    await a.pg.waitForFunction(async () => {
      const nomes = (await caches.keys()).filter((k) => k.startsWith("livro-site-"));
      if (nomes.length !== 1 || !navigator.serviceWorker.controller) return false;
      const urls = (await (await caches.open(nomes[0])).keys()).map((r) => r.url);
      return urls.includes(location.href.split("#")[0]) && urls.some((u) => u.includes("/widgets/worker.mjs?v="))
        && urls.some((u) => u.includes("/widgets/widgets.js"));
    }, null, { timeout: 30_000, polling: 250 });
    // o worker guarda o runtime descomprimido depois do "pronto", quando o leitor para
    await a.pg.waitForFunction(async () => (await (await caches.open("livro-runtime")).keys())
      .some((r) => r.url.includes("/pyodide/cru/manifesto")), null, { timeout: 30_000, polling: 250 });
    // o service worker guardou o pyodide.mjs do cache HTTP: ele não veio duas vezes pela rede
    assert.equal(srv.enviados.pedidos.filter((c) => c === "/_static/pyodide/pyodide.mjs").length, 1);
    await ctx.close();
    // no ônibus: o navegador aberto de novo, sem rede nenhuma
    srv.cair();
    ctx = await launchComPerfil(perfil);
    await ctx.setOffline(true);
    const b = await abrir(pagina, { ctx, srv });
    await pronto(b.pg, b.w);
    await b.w.locator("input[name=texto]").fill("o gato subiu no telhado");
    await sossegar(b.w);
    assert.match(await textoSaida(b.w), /ids = \[0, 2, 4, 5, 1, \d+\]/);
    assert.equal(await b.pg.evaluate(() => Boolean(navigator.serviceWorker.controller)), true);
    semErrosNossos(b.erros.filter((e) => !/Failed to load resource|net::ERR_/.test(e)));
  } finally {
    await ctx?.close();
    await srv.fechar();
    rmSync(perfil, { recursive: true, force: true });
  }
});

test("sem o service worker (LIVRO_WIDGETS.offline = false), nenhum é registrado", async () => {
  const srv = await servir(HTML);
  const ctx = await navegador.newContext();
  try {
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { offline: false }; });
    const { pg } = await abrir(nomeDe(umaPagina()), { ctx, srv });
    await pg.waitForLoadState("load");
    await pg.waitForTimeout(1500);
    assert.equal(await pg.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
    assert.equal(await estado(pg) === "falhou", false);
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});
