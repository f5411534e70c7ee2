// A carga do Python dos widgets: recarregar no meio, a segunda página, o worker compartilhado
// entre abas, um worker que falha ou morre. O preparo comum: widgets_comum.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  HTML, ESPERA, navegador, paginas, bloqueados, ref, PEDIDOS, abrir, pronto, sossegar, textoSaida, confere,
  semErrosNossos, contexto, servir, bloquearRede, rolarAte,
  memoriaGuardada,
  umaPagina, nomeDe, LENTA,
} from "./widgets_comum.mjs";

async function recarregarNoMeio(compartilhado) {
  const srv = await servir(HTML, { taxa: 4 * LENTA });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript((c) => { globalThis.LIVRO_WIDGETS = { compartilhado: c }; }, compartilhado);
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx, srv });
    await rolarAte(w);
    // Espera metade chegar e recarrega.
    await pg.waitForFunction(() => {
      const p = globalThis.livroWidgets?.medidas.progresso.at(-1);
      return p && p.rede > 0.5 * p.total;
    }, null, { timeout: 60_000 });
    // Só os bytes do runtime pedidos depois da recarga (a página, o tema e o MathJax também
    // vêm de novo; os pedidos antigos, cortados no meio, não contam).
    const recarga = performance.now();
    const runtime = () => srv.enviados.lista.filter((r) => r.inicio > recarga && r.caminho.startsWith("/_static/pyodide/"))
      .reduce((s, r) => s + r.bytes, 0);
    await pg.reload();
    await rolarAte(pg.locator(".livro-widget").first());
    await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
      { timeout: 120_000 });
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "pronto");
    const m = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.compartilhado, compartilhado);
    const total = m.progresso.at(-1).total;
    if (compartilhado) {
      // a página nova entrou na carga que já estava andando: nenhum arquivo do runtime foi
      // pedido duas vezes (o manifesto, que cada carga da página relê, não conta)
      const pedidos = srv.enviados.lista.map((r) => r.caminho)
        .filter((c) => c.startsWith("/_static/pyodide/") && !c.endsWith("/manifesto.json"));
      assert.deepEqual(pedidos.filter((c, i) => pedidos.indexOf(c) !== i), [], "arquivos pedidos duas vezes");
      assert.equal(m.reutilizado, false);
      assert.ok(runtime() < 0.6 * total, `depois da recarga vieram ${runtime()} de ${total} bytes`);
    } else {
      // Perde-se no máximo o que estava a meio caminho (2 pedidos de 512 KiB).
      assert.ok(m.bytes.cache > 0.25 * total, `só ${m.bytes.cache} de ${total} bytes vieram do cache`);
      assert.ok(m.bytes.rede < 0.75 * total, `${m.bytes.rede} de ${total} bytes baixados de novo`);
      assert.ok(runtime() < 0.75 * total, `a recarga baixou de novo ${runtime()} de ${total} bytes`);
    }
  } finally {
    await ctx.close();
    await srv.fechar();
  }
}

test("recarregar no meio da carga, com o worker compartilhado: a mesma carga segue e nada vem duas vezes", () =>
  recarregarNoMeio(true));

test("recarregar no meio da carga, com um Worker comum: continua do que já chegou (Cache API)", () =>
  recarregarNoMeio(false));


// A segunda página, por dois caminhos: com o worker compartilhado, o Python da primeira ainda
// está vivo e só os widgets dela aquecem; com um Worker comum, o runtime vem do Cache API e o
// Python, do instantâneo da memória que a primeira guardou.
async function segundaPagina(compartilhado) {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript((c) => { globalThis.LIVRO_WIDGETS = { compartilhado: c }; }, compartilhado);
    const nomes = [...paginas.keys()];
    const a = await abrir(nomes[0], { ctx });
    await pronto(a.pg, a.w);
    // a primeira página, fria, não parte nada no <head>: só quando o widget aparece
    assert.equal(await a.pg.evaluate(() => globalThis.livroWidgets.medidas.partida), "widgets.js");
    await a.pg.waitForFunction(() => globalThis.livroWidgets.medidas.bytecode, null, { timeout: ESPERA });
    const ma = await a.pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(ma.bytecode.erro, undefined);
    assert.equal(ma.compartilhado, compartilhado);
    assert.equal(ma.reutilizado, false);
    assert.equal(ma.memoria, "sem", "a primeira carga achou uma memória guardada num navegador novo");
    assert.equal(ma.pacote.naMemoria, false);
    assert.equal(ma.runtime, "pedaços");
    assert.equal(ma.sozinho, false, "sem manifesto guardado, o worker da primeira página não esperou o iniciar");
    assert.ok(await memoriaGuardada(a.pg) > 1e6, "o worker não guardou a memória do Python");
    // depois do "pronto", o worker esquenta cada widget da página mais VEZES vezes
    const wa = await esquentado(a.pg);
    assert.equal(wa.chamadas, VEZES * wa.widgets.length, "o worker não esquentou os widgets da página");
    await a.pg.close();
    const outro = nomes.find((n) => paginas.get(n) !== paginas.get(nomes[0]));
    const b = await abrir(outro, { ctx });
    const build = await textoSaida(b.w);
    await pronto(b.pg, b.w);
    const m = await b.pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.bytes.rede, 0, "a segunda página baixou o runtime de novo");
    // com o runtime guardado, o worker parte do <head> (livro_ext/widgets/partida.js),
    // antes de o HTML acabar de ser lido; widgets.js só o adota
    const dcl = await b.pg.evaluate(() => performance.getEntriesByType("navigation")[0].domContentLoadedEventStart);
    assert.equal(m.partida, "head", "o worker da segunda página não partiu do <head>");
    assert.ok(m.inicio < dcl, `o worker partiu em ${Math.round(m.inicio)} ms, depois do HTML lido (${Math.round(dcl)} ms)`);
    // o worker nasceu antes de o manifesto chegar (a versão veio do localStorage)
    const manifesto = await b.pg.evaluate(() => performance.getEntriesByType("resource")
      .find((r) => r.name.includes("/pyodide/manifesto.json"))?.responseEnd);
    assert.equal(m.antecipado, true, "o worker da segunda página esperou o manifesto");
    assert.ok(m.criado < manifesto, `o worker nasceu em ${Math.round(m.criado)} ms, depois do manifesto (${Math.round(manifesto)} ms)`);
    if (compartilhado) {
      // a primeira página já fechou, e o mesmo Python responde à segunda: nada recarregou
      assert.equal(m.worker, ma.worker, "a segunda página abriu outro worker");
      assert.equal(m.reutilizado, true);
      assert.ok(m.nasceu < 0, `o worker compartilhado começou a rodar em ${Math.round(m.nasceu)} ms, depois de a página abrir`);
      assert.deepEqual(Object.keys(m.fases), ["aquecido"]);
      assert.match(await b.w.locator(".lw-status").textContent(), /já estava carregado/);
    } else {
      assert.notEqual(m.worker, ma.worker);
      assert.equal(m.reutilizado, false);
      // o worker desta página começou a rodar depois de criado (1 ms de arredondamento dos relógios)
      assert.ok(m.nasceu >= m.criado - 1 && m.nasceu < m.pronto,
        `o worker criado em ${Math.round(m.criado)} ms começou a rodar em ${Math.round(m.nasceu)} ms (pronto em ${Math.round(m.pronto)} ms)`);
      assert.equal(m.bytes.cache, m.bytes.total, "a segunda página não leu o runtime do Cache API");
      assert.ok(m.fases.python > 0, "a segunda página não iniciou o Python dela");
      assert.equal(m.memoria, "usado", "a segunda página não restaurou a memória guardada do Python");
      // a memória guardada já trazia os módulos do livro importados: o "pronto" sai antes de a
      // roda ser instalada, e o loadPackage a instala (e registra) quando o leitor para de mexer
      assert.equal(m.pacote.naMemoria, true, "a memória restaurada veio sem os módulos do livro");
      assert.deepEqual(m.pacote.instalados, [], "o worker instalou a roda antes do pronto, com o livro já na memória");
      assert.match(m.pacote.arquivo, /\/site-packages\/.+\.pyc$/, "os módulos da memória não vieram da roda");
      await b.pg.waitForFunction(() => globalThis.livroWidgets.medidas.instalado, null, { timeout: ESPERA });
      const depois = await b.pg.evaluate(() => globalThis.livroWidgets.medidas.pacote);
      assert.equal(depois.erro, undefined);
      assert.deepEqual(depois.instalados, [ma.pacote.nome], "a roda não foi instalada depois do pronto");
      assert.ok(depois.respostasAntes >= 1, "nenhum widget respondeu antes de a roda ser instalada");
      // o runtime veio já descomprimido, guardado pela primeira página
      assert.equal(m.runtime, "descomprimido", "a segunda página descomprimiu os pedaços de novo");
      // com o manifesto guardado junto, a carga pode ter começado antes do "iniciar" (quem chega
      // antes, a leitura do manifesto ou o pedido da página, varia; o teste abaixo fixa a ordem)
      assert.equal(typeof m.sozinho, "boolean");
    }
    assert.equal(await textoSaida(b.w), build, "na segunda página, o Python discorda do build");
    // o compartilhado só esquenta os widgets que a primeira página não tinha; um Worker novo, todos
    const wb = await esquentado(b.pg);
    const novos = compartilhado ? wb.widgets.filter((x) => !wa.widgets.includes(x)) : wb.widgets;
    assert.equal(wb.chamadas, VEZES * novos.length);
    semErrosNossos(b.erros);
    await b.pg.close();
  } finally {
    await ctx.close();
  }
}

// O número de vezes que o worker esquenta cada widget depois do "pronto" (worker.mjs).
const VEZES = Number(/const VEZES = (\d+);/.exec(readFileSync(join(HTML, "_static", "widgets", "worker.mjs"), "utf8"))[1]);

// Espera o worker terminar de esquentar os widgets da página; devolve as chamadas e os widgets dela.
async function esquentado(pg) {
  await pg.waitForFunction(() => globalThis.livroWidgets.medidas.esquentado, null, { timeout: ESPERA });
  return pg.evaluate(() => ({ chamadas: globalThis.livroWidgets.medidas.esquentado.chamadas,
    widgets: [...new Set([...document.querySelectorAll(".livro-widget")].map((w) => w.dataset.widget))] }));
}

test("segunda página, worker compartilhado: o Python da primeira responde, sem carregar de novo", () =>
  segundaPagina(true));

test("segunda página, Worker comum: o runtime vem do cache, o Python do bytecode guardado, e o worker começa no <head>", () =>
  segundaPagina(false));

test("worker compartilhado: duas abas (e uma recarga) têm cada uma o seu cache de KV", async () => {
  // O Python guarda o cache de KV pelo inst do widget. Com o mesmo inst nas duas abas, a segunda
  // acharia o cache do prompt da primeira e diria "nenhuma linha nova" logo ao abrir; a recarga
  // depois de «Recomeçar», idem. Nos dois casos a tela sairia diferente da do build.
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    const n = ref.fatos.tokens_prompt.length;
    const chips = (w) => w.locator(".lw-tokens .lw-token-texto").count();
    const clicar = async (w, acao) => { await w.locator(`[data-acao=${acao}]`).click(); await sossegar(w); };
    const a = await abrir("proximo", { ctx });
    const build = await textoSaida(a.w);
    await pronto(a.pg, a.w);
    // a segunda aba, com a primeira aberta no prompt: o mesmo worker, o estado do build
    const b = await abrir("proximo", { ctx });
    await pronto(b.pg, b.w);
    const [ma, mb] = await Promise.all([a, b].map((x) => x.pg.evaluate(() => globalThis.livroWidgets.medidas)));
    assert.equal(mb.worker, ma.worker, "a segunda aba abriu outro worker");
    assert.equal(mb.reutilizado, true);
    assert.equal(await textoSaida(b.w), build, "a segunda aba herdou o cache de KV da primeira");
    await clicar(b.w, "anexar");
    await clicar(b.w, "anexar");
    assert.equal(await chips(b.w), n + 2);
    // a primeira aba segue do ponto dela: só a linha do token anexado é nova
    await clicar(a.w, "anexar");
    assert.equal(await chips(a.w), n + 1);
    assert.match(await a.w.locator(".lw-cache").textContent(), /1 linha nova/);
    // «Recomeçar» e recarregar: a carga nova volta ao estado do build, no mesmo worker
    await clicar(a.w, "recomecar");
    await a.pg.reload();
    const w2 = a.pg.locator('.livro-widget[data-widget="proximo"]').first();
    await pronto(a.pg, w2);
    assert.equal(await a.pg.evaluate(() => globalThis.livroWidgets.medidas.worker), ma.worker);
    assert.equal(await textoSaida(w2), build, "a recarga herdou o cache de KV da carga anterior");
    semErrosNossos([...a.erros, ...b.erros]);
  } finally {
    await ctx.close();
  }
});

test("um SharedWorker que falha ao abrir (um navegador sem módulos nele): a página segue com um Worker comum", async () => {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => {
      // um SharedWorker que nunca responde e avisa um erro logo depois de criado
      globalThis.SharedWorker = class {
        constructor() {
          this.port = { postMessage() {}, close() {}, onmessage: null };
          setTimeout(() => this.onerror?.(new Event("error")), 50);
        }
      };
    });
    const { pg, w, erros } = await abrir(nomeDe(umaPagina()), { ctx });
    const build = await textoSaida(w);
    await pronto(pg, w);
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.compartilhado), false);
    assert.equal(await textoSaida(w), build);
    semErrosNossos(erros);
  } finally {
    await ctx.close();
  }
});

test("o worker compartilhado morre com a página aberta: o próximo pedido abre outro worker e a resposta chega certa", async () => {
  const ctx = await navegador.newContext();
  const cdp = await navegador.newBrowserCDPSession();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { respostaMs: 3000 }; });
    const { pg, w, erros } = await abrir("tokens", { ctx });
    await pronto(pg, w);
    const antes = await pg.evaluate(() => globalThis.livroWidgets.medidas.worker);
    // o navegador fecha o worker (como na volta do cache de voltar/avançar depois de 5 min)
    const { targetInfos } = await cdp.send("Target.getTargets");
    const daPagina = targetInfos.find((x) => x.type === "page" && x.url === pg.url()); // o contexto deste teste
    assert.ok(daPagina, "não achei a página entre os alvos do navegador");
    const sw = targetInfos.filter((x) => x.type === "shared_worker" && x.url.includes("/_static/widgets/worker.mjs") &&
      x.browserContextId === daPagina.browserContextId);
    assert.equal(sw.length, 1, "não achei o worker compartilhado");
    await cdp.send("Target.closeTarget", { targetId: sw[0].targetId });
    await w.locator("[name=texto]").fill(PEDIDOS.tokens_teclado.campos.texto);
    await confere(w, "tokens_teclado");
    const m = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.reaberturas, 1);
    assert.notEqual(m.worker, antes);
    assert.equal(m.compartilhado, false, "reaberto como compartilhado: podia ser o mesmo worker travado");
    assert.match(await w.locator(".lw-status").textContent(), /Pronto/);
    semErrosNossos(erros);
  } finally {
    await cdp.detach();
    await ctx.close();
  }
});

test("um worker que nunca responde a tempo: duas tentativas e depois uma mensagem clara", async () => {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    // nenhum pedido responde em 0 ms: cada um conta como um worker morto
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { respostaMs: 0 }; });
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx });
    await rolarAte(w);
    await pg.waitForFunction(() => globalThis.livroWidgets?.estado() === "falhou", null, { timeout: ESPERA });
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.reaberturas), 2,
      JSON.stringify(await pg.evaluate(() => globalThis.livroWidgets.medidas.falhas)));
    assert.match(await w.locator(".lw-status").textContent(), /parou de responder\./);
    // nada desativado para sempre: os controles seguem ativos, e há «Tentar de novo»
    assert.equal(await w.locator("form button, form input").first().isDisabled(), false);
    assert.equal(await w.locator(".lw-tentar").isVisible(), true);
  } finally {
    await ctx.close();
  }
});

// Um Worker comum num leitor que volta: cada carga abre a página, espera o "pronto", confere as
// respostas com as do build e devolve as medidas e a marca do .wasm no cache HTTP (worker.mjs);
// esperarMemoria: espera a memória do Python ser guardada (a 1ª carga); esperarHttp: espera o
// .wasm ir ao cache HTTP; depoisMs: fica mais esse tempo na página.
