// O leitor que volta (o runtime e a memória guardados, o .wasm no cache HTTP), o site publicado
// de novo, o que está guardado estragado, a partida no <head> e o widget longe da tela.
// O preparo comum: widgets_comum.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  HTML, ESPERA, navegador, bloqueados, abrir, pronto, textoSaida, confere, semErrosNossos, servidor, servir,
  launchComPerfil, bloquearRede, rolarAte,
  memoriaGuardada,
  umaPagina, nomeDe,
  paginas,
} from "./widgets_comum.mjs";

async function cargaQueVolta(ctx, srv, nome, { esperarMemoria = false, esperarHttp = false, depoisMs = 0 } = {}) {
  const c = await abrir(nome, { ctx, srv });
  const build = await textoSaida(c.w);
  await pronto(c.pg, c.w);
  assert.equal(await textoSaida(c.w), build, "o Python discorda do build");
  if (esperarMemoria) assert.ok(await memoriaGuardada(c.pg) > 1e6, "o worker não guardou a memória do Python");
  if (esperarHttp) {
    await c.pg.waitForFunction(() => globalThis.livroWidgets.medidas.wasmHttp, null, { timeout: ESPERA });
  }
  await c.pg.waitForTimeout(depoisMs);
  const m = await c.pg.evaluate(() => globalThis.livroWidgets.medidas);
  m.marca = await c.pg.evaluate(async () => {
    const cache = await caches.open("livro-runtime");
    const k = (await cache.keys()).find((r) => r.url.includes("/pyodide/cru/http?v="));
    return k ? (await cache.match(k)).text() : null;
  });
  semErrosNossos(c.erros);
  await c.pg.close();
  return m;
}

test("leitor que volta, Worker comum: o .wasm vai ao cache HTTP, conferido, e a carga seguinte compila dali; fora do cache HTTP, volta ao guardado e não busca de novo", async () => {
  const srv = await servir(HTML);
  const perfil = mkdtempSync(join(tmpdir(), "livro-perfil-"));
  const ctx = await launchComPerfil(perfil);
  try {
    // Sem bloquearRede: interceptar os pedidos (route) desliga o cache HTTP. A rede de fora já
    // não resolve (--host-resolver-rules, em chromium.mjs); aqui só se anota o que saiu.
    ctx.on("request", (r) => {
      const u = new URL(r.url());
      if (u.hostname !== "127.0.0.1" && !["data:", "blob:"].includes(u.protocol)) bloqueados.push(r.url());
    });
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const nome = nomeDe(umaPagina());
    const wasm = "/_static/pyodide/pyodide.asm.wasm";
    const inteiro = () => srv.enviados.pedidos.filter((c) => c === wasm).length;
    // 1ª carga: os pedaços de gzip; o .wasm inteiro não é buscado
    const ma = await cargaQueVolta(ctx, srv, nome, { esperarMemoria: true });
    assert.equal(ma.wasm, "pedaços");
    assert.equal(inteiro(), 0, "a primeira carga buscou o .wasm inteiro além dos pedaços");
    // 2ª: o runtime guardado; depois do "pronto", o .wasm inteiro uma vez, conferido e marcado
    const mb = await cargaQueVolta(ctx, srv, nome, { esperarHttp: true });
    assert.equal(mb.wasm, "descomprimido");
    assert.equal(mb.wasmHttp.guardado, true, "o .wasm do cache HTTP não conferiu com o manifesto");
    assert.equal(mb.marca, "confere");
    assert.equal(inteiro(), 1);
    // 3ª: compila do cache HTTP, sem ir à rede (only-if-cached)
    const mc = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(mc.wasm, "http", "o wasm não compilou do cache HTTP");
    assert.equal(mc.bytes.rede, 0);
    assert.equal(inteiro(), 1, "a carga que compilou do cache HTTP foi à rede");
    // o cache HTTP esvaziado (pelo navegador, ou pelo leitor): a carga compila do guardado,
    // marca que faltou e não busca de novo (um navegador que não o guarda baixaria a cada carga)
    const cdp = await ctx.newCDPSession(await ctx.newPage());
    await cdp.send("Network.clearBrowserCache");
    const md = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(md.wasm, "descomprimido");
    assert.equal(md.marca, "faltou");
    const me = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(me.wasm, "descomprimido");
    assert.equal(inteiro(), 1, "o .wasm foi buscado de novo depois de sair do cache HTTP");
  } finally {
    await ctx.close();
    await srv.fechar();
    rmSync(perfil, { recursive: true, force: true });
  }
});

test("leitor que volta: um .wasm no cache HTTP que não confere com o manifesto não é usado nem buscado de novo", async () => {
  const reescrever = {};
  const srv = await servir(HTML, { reescrever });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const nome = nomeDe(umaPagina());
    // um servidor que manda outro .wasm no endereço do inteiro (um CDN com o arquivo velho)
    reescrever["/_static/pyodide/pyodide.asm.wasm"] = (corpo) => {
      const b = Buffer.from(corpo);
      b[b.length - 1] ^= 0xff;
      return b;
    };
    const inteiro = () => srv.enviados.pedidos.filter((c) => c === "/_static/pyodide/pyodide.asm.wasm").length;
    await cargaQueVolta(ctx, srv, nome, { esperarMemoria: true });
    const mb = await cargaQueVolta(ctx, srv, nome, { esperarHttp: true });
    assert.equal(mb.wasmHttp.guardado, false, "um .wasm que não confere foi marcado");
    assert.equal(mb.marca, "faltou");
    const mc = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(mc.wasm, "descomprimido", "o wasm compilou de um cache HTTP que não conferiu");
    assert.equal(inteiro(), 1, "o .wasm que não conferiu foi buscado de novo");
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

test("site publicado de novo (outra versão no manifesto): a página abre outro worker, não o Python antigo", async () => {
  const reescrever = {};
  const srv = await servir(HTML, { reescrever });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    const nome = nomeDe(umaPagina());
    const a = await abrir(nome, { ctx, srv });
    await pronto(a.pg, a.w);
    const ma = await a.pg.evaluate(() => globalThis.livroWidgets.medidas);
    await a.pg.close();
    // os mesmos arquivos, outra versão: como um deploy que só mudou o worker.mjs
    reescrever["/_static/pyodide/manifesto.json"] = (corpo) => {
      const m = JSON.parse(corpo);
      return JSON.stringify({ ...m, versao: m.versao + "b" });
    };
    const b = await abrir(nome, { ctx, srv });
    await pronto(b.pg, b.w);
    const mb = await b.pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.notEqual(mb.worker, ma.worker, "a versão nova conversou com o worker da versão antiga");
    assert.equal(mb.reutilizado, false);
    // o localStorage guardava a versão antiga: o worker criado cedo fechou, e outro abriu
    assert.equal(mb.antecipado, false, "a página adotou o worker da versão antiga");
    assert.equal(mb.memoria, "sem", "a memória do Python da versão antiga foi restaurada na nova");
    assert.equal(mb.bytes.cache, mb.bytes.total, "os arquivos iguais deviam vir do Cache API");
    await b.pg.close();
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

// Num Worker comum, a primeira carga de uma página guarda a memória do Python (e o runtime
// descomprimido); `estragar(arg)`, rodado nessa página, estraga algo no cache e devolve uma marca.
// A carga seguinte da mesma página vai a `conferir({ pg, w, m, build, marca })`: `m` são as
// medidas dela, `build` o texto da saída antes do Python (o do build).
async function segundaCargaComCacheEstragado(estragar, arg, conferir) {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const pagina = nomeDe(umaPagina());
    const a = await abrir(pagina, { ctx });
    await pronto(a.pg, a.w);
    assert.ok(await memoriaGuardada(a.pg) > 1e6, "o worker não guardou a memória do Python");
    const marca = await a.pg.evaluate(estragar, arg);
    await a.pg.close();
    const b = await abrir(pagina, { ctx });
    const build = await textoSaida(b.w);
    await pronto(b.pg, b.w);
    const m = await b.pg.evaluate(() => globalThis.livroWidgets.medidas);
    await conferir({ ...b, m, build, marca });
    semErrosNossos(b.erros);
    await b.pg.close();
  } finally {
    await ctx.close();
  }
}

// A memória do Python guardada (o instantâneo) estragada de dois jeitos: todos os bytes
// trocados (o cabeçalho já não confere) ou só o meio zerado (o cabeçalho confere, o Python não).
const memoriaEstragada = (jeito) => segundaCargaComCacheEstragado(async (jeito) => {
  const c = await caches.open("livro-runtime");
  const k = (await c.keys()).find((r) => r.url.includes("/pyodide/memoria?v="));
  const bytes = new Uint8Array(await (await c.match(k)).arrayBuffer());
  const ultimo = bytes[bytes.length - 1];
  if (jeito === "tudo") bytes.fill(0xab);
  else bytes.fill(0, Math.floor(bytes.length / 4), Math.floor((3 * bytes.length) / 4));
  bytes[bytes.length - 1] = ultimo ^ 0xff; // a marca: o último byte de uma memória boa é outro
  await c.put(k, new Response(bytes));
  return bytes[bytes.length - 1];
}, jeito, async ({ pg, w, m, build, marca }) => {
  assert.equal(m.memoria, "sem", "a memória estragada foi usada");
  assert.equal(await textoSaida(w), build, "depois da memória estragada, o Python discorda do build");
  // a estragada foi apagada e outra, guardada: a próxima carga volta a ser rápida
  const valida = await memoriaGuardada(pg, marca);
  assert.ok(valida > 1e6, "o worker não guardou outra memória no lugar da estragada");
});

// O runtime descomprimido guardado (o .wasm, o pyodide.asm.js ou a biblioteca padrão) com os
// bytes trocados, no tamanho certo (o hash não confere): a carga recomeça dos pedaços de gzip,
// responde como o build e guarda um runtime bom no lugar.
const cruEstragado = (nome) => segundaCargaComCacheEstragado(async (nome) => {
  const c = await caches.open("livro-runtime");
  const k = (await c.keys()).find((r) => r.url.includes(`/pyodide/cru/${nome}?v=`));
  const bytes = new Uint8Array(await (await c.match(k)).arrayBuffer());
  bytes.fill(0xab);
  await c.put(k, new Response(bytes));
  return bytes.length;
}, nome, async ({ pg, w, m, build, marca }) => {
  assert.ok(marca > 1e5, `o worker não guardou o ${nome} descomprimido`);
  assert.equal(m.runtime, "pedaços", `o ${nome} estragado foi usado`);
  assert.equal(m.bytes.rede, 0, "recomeçar dos pedaços não devia baixar nada");
  assert.equal(await textoSaida(w), build, `depois do ${nome} estragado, o Python discorda do build`);
  // um runtime bom no lugar do estragado (e a memória: a seguinte volta a ser rápida)
  assert.ok(await memoriaGuardada(pg) > 1e6, "o worker não guardou outra memória");
  const primeiro = await pg.evaluate(async (nome) => {
    const c = await caches.open("livro-runtime");
    const k = (await c.keys()).find((r) => r.url.includes(`/pyodide/cru/${nome}?v=`));
    return k ? new Uint8Array(await (await c.match(k)).arrayBuffer())[0] : null;
  }, nome);
  assert.notEqual(primeiro, 0xab, `o ${nome} estragado ficou no cache`);
  assert.notEqual(primeiro, null, `o worker não guardou outro ${nome}`);
});

test("runtime descomprimido guardado com o .wasm estragado: recomeça dos pedaços e responde certo", () =>
  cruEstragado("wasm"));

test("runtime descomprimido guardado com o pyodide.asm.js estragado: recomeça dos pedaços e responde certo", () =>
  cruEstragado("asm"));

test("runtime descomprimido guardado com a biblioteca padrão estragada: recomeça dos pedaços e responde certo", () =>
  cruEstragado("stdlib"));

test("memória do Python guardada com todos os bytes trocados: inicia do jeito normal, responde certo e guarda outra", () =>
  memoriaEstragada("tudo"));

test("memória do Python guardada com o meio zerado (o cabeçalho confere): inicia do jeito normal e responde certo", () =>
  memoriaEstragada("meio"));

test("com o manifesto guardado, o worker começa a carga quando nasce, antes do iniciar da página", async () => {
  // Uma primeira página guarda o runtime descomprimido, o manifesto e a memória; um Worker
  // comum novo dessa versão carrega sozinho, sem mandar nada a ninguém. O "iniciar" mandado
  // 3 s depois recebe o "pronto" dessa carga (não um Python "já carregado de outra página").
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const nome = [...paginas.keys()][0];
    const a = await abrir(nome, { ctx });
    await pronto(a.pg, a.w);
    assert.ok(await memoriaGuardada(a.pg) > 1e6, "o worker não guardou a memória do Python");
    const r = await a.pg.evaluate(async () => {
      const url = (c) => new URL((document.documentElement.dataset.content_root || "") + "_static/" + c, location.href);
      const m = await (await fetch(url("pyodide/manifesto.json"), { cache: "no-cache" })).json();
      const c = await caches.open("livro-runtime");
      const guardado = Boolean(await c.match(url(`pyodide/cru/manifesto?v=${m.versao}`).href));
      const w = new Worker(url(`widgets/worker.mjs?v=${m.versao}`), { type: "module" });
      const msgs = [];
      let fim;
      const chegou = new Promise((ok) => { fim = ok; });
      w.onmessage = ({ data }) => { msgs.push(data); if (data.tipo === "pronto" || data.tipo === "falhou") fim(data); };
      await new Promise((ok) => setTimeout(ok, 3000));
      const antes = msgs.length;
      w.postMessage({ tipo: "iniciar", widgets: [], manifesto: m });
      const p = await chegou;
      w.terminate();
      return { guardado, antes, p };
    });
    assert.equal(r.guardado, true, "o manifesto não foi guardado com o runtime");
    assert.equal(r.antes, 0, "o worker mandou mensagens antes de alguém pedir");
    assert.equal(r.p.tipo, "pronto", r.p.mensagem);
    assert.equal(r.p.sozinho, true, "o worker esperou o iniciar");
    assert.ok(r.p.fases.pedido < r.p.iniciarEm, `a carga começou em ${r.p.fases.pedido} ms, depois do iniciar (${r.p.iniciarEm} ms)`);
    assert.equal(r.p.reutilizado, false);
    assert.equal(r.p.memoria, "usado");
    assert.equal(r.p.runtime, "descomprimido");
    semErrosNossos(a.erros);
  } finally {
    await ctx.close();
  }
});

test("localStorage com a versão mas sem o runtime guardado (o leitor limpou o cache): o worker do <head> fecha sem buscar nada", async () => {
  // partida.js cria o worker já com a versão do localStorage; sem o runtime no Cache API, ele não
  // pode começar a baixar 4 MB por um widget que o leitor ainda não viu.
  const versao = JSON.parse(readFileSync(join(HTML, "_static", "pyodide", "manifesto.json"), "utf8")).versao;
  const [pagina, nome] = [...new Map([...paginas.entries()].map(([n, p]) => [p, n]))]
    .find(([p]) => p !== umaPagina()) || [umaPagina(), nomeDe(umaPagina())];
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript((v) => { try { localStorage.setItem("livro-runtime-versao", v); } catch { /* about:blank */ } }, versao);
    const pyodide = [];
    const workers = [];
    // os pedidos respondidos do Pyodide (o service worker procura no cache HTTP, sem ir à rede, o
    // que o worker buscou: a procura que não acha falha) e os pedidos do worker
    ctx.on("requestfinished", (r) => {
      if (r.url().includes("/_static/pyodide/") && !r.url().includes("manifesto.json")) pyodide.push(r.url());
    });
    ctx.on("request", (r) => { if (r.url().includes("/widgets/worker.mjs")) workers.push(r.url()); });
    const pg = await ctx.newPage();
    await pg.goto(servidor.url + pagina);
    await pg.waitForTimeout(1500);
    assert.ok(workers.some((u) => u.includes(`v=${versao}`)), "o <head> não criou o worker com a versão do localStorage");
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "parado");
    assert.equal(await pg.evaluate(() => globalThis.livroPartida), null, "a partida do <head> seguiu sem runtime guardado");
    const w = pg.locator(`.livro-widget[data-widget="${nome}"]`).first();
    const longe = await w.evaluate((el) => el.getBoundingClientRect().top - innerHeight - 600 > 0);
    if (longe) assert.deepEqual(pyodide, [], "baixou o Pyodide sem o widget na tela");
    await rolarAte(w);
    await pg.waitForFunction(() => globalThis.livroWidgets.estado() === "pronto", null, { timeout: ESPERA });
    const m = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.antecipado, false, "a página adotou o worker que o <head> abriu sem runtime");
    assert.equal(m.partida, "widgets.js");
  } finally {
    await ctx.close();
  }
});

test("widget longe da tela: o Python só carrega quando o widget aparece (mesmo numa seção ainda sem desenho)", async () => {
  // Cache vazio: sem runtime guardado, a página não pode baixar 4 MB por um widget que o
  // leitor ainda não viu. Vale para toda página cujo widget começa longe da primeira tela.
  let longe = 0;
  const umaPorPagina = new Map([...paginas.entries()].reverse().map(([nome, pagina]) => [pagina, nome]));
  for (const [pagina, nome] of umaPorPagina) {
    const ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await bloquearRede(ctx, bloqueados);
      const pyodide = [];
      // só os pedidos respondidos: o service worker procura no cache HTTP (only-if-cached) o que o
      // worker buscou, e essa procura, sem nada lá, falha sem ir à rede
      ctx.on("requestfinished", (r) => { if (r.url().includes("/_static/pyodide/")) pyodide.push(r.url()); });
      const pg = await ctx.newPage();
      await pg.goto(servidor.url + pagina);
      await pg.waitForTimeout(1500);
      const w = pg.locator(`.livro-widget[data-widget="${nome}"]`).first();
      // longe: além da tela e da margem em que o Python começa (300 px), com folga
      const topo = await w.evaluate((el) => el.getBoundingClientRect().top - innerHeight - 600);
      if (topo <= 0) continue;
      longe++;
      assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "parado", `${pagina}: começou sem o widget na tela`);
      assert.deepEqual(pyodide, [], `${pagina}: baixou o Pyodide sem o widget na tela`);
      await rolarAte(w);
      await pg.waitForFunction(() => globalThis.livroWidgets.estado() === "pronto", null, { timeout: ESPERA });
    } finally {
      await ctx.close();
    }
  }
  assert.ok(longe >= 3, `só ${longe} páginas com o widget longe do topo: o teste não prova nada`);
});
