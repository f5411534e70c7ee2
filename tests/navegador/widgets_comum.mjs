// O que os testes dos widgets no navegador dividem (widgets, carga e volta .test.mjs): o site
// servido, o Chromium sem rede (só 127.0.0.1), a referência do CPython e as funções de abrir,
// esperar e conferir um widget. Importar este arquivo registra o before/after do arquivo de teste.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { servir } from "./servidor.mjs";
import { launch, launchComPerfil, bloquearRede, rolarAte } from "./chromium.mjs";

export { servir, launch, launchComPerfil, bloquearRede, rolarAte };

export const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const HTML = resolve(process.env.LIVRO_HTML || join(RAIZ, "_build", "html"));
export const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
export const FOTOS = mkdtempSync(join(tmpdir(), "livro-widgets-"));
export const ESPERA = 90_000; // carregar o Pyodide numa máquina ocupada

// Mensagens do tema (sphinx-book-theme / pydata), não dos widgets: não contam como erro nosso.
export const DO_TEMA = [/THEBE_JS_URL/, /invalid theme mode/i];

export let navegador, servidor, contexto;
export const paginas = new Map(); // widget -> caminho da página
export const bloqueados = [];
export let ref;

export function acharPaginas(pasta) {
  for (const nome of readdirSync(pasta, { withFileTypes: true })) {
    const p = join(pasta, nome.name);
    if (nome.isDirectory()) { if (!nome.name.startsWith("_")) acharPaginas(p); continue; }
    if (!nome.name.endsWith(".html")) continue;
    for (const m of readFileSync(p, "utf8").matchAll(/class="livro-widget" data-widget="([^"]+)"/g)) {
      if (!paginas.has(m[1])) paginas.set(m[1], relative(HTML, p).split("\\").join("/"));
    }
  }
}

// Os pedidos que os cenários fazem, na ordem; o CPython responde todos de uma vez.
export const PEDIDOS = {
  tokens_frase: { widget: "tokens", campos: { texto: "o gato subiu no telhado." } },
  tokens_fora: { widget: "tokens", campos: { texto: "o cachorro subiu" } },
  tokens_vazio: { widget: "tokens", campos: { texto: "" } },
  tokens_teclado: { widget: "tokens", campos: { texto: "o gato" } },
  emb: { widget: "embeddings", campos: { token: "2", posicao: "2" } },
  qkv_linha1: { widget: "qkv", campos: { linha: "1" }, acao: "linha" },
  qkv_letra: { widget: "qkv", campos: { x1: "abc" } },
  qkv_vazio: { widget: "qkv", campos: { x2: "" } },
  masc: { widget: "mascaras", campos: { causal: false, cabeca: "2" } },
  bloco_x10: { widget: "bloco", acao: "caso:linha2x10" },
  bloco_ultimo: { widget: "bloco", acao: "caso:ultimo" },
  bloco_sem: { widget: "bloco", acao: "caso:sem_atencao" },
  bloco_letra: { widget: "bloco", campos: { x11: "a" } },
  bloco_vazio: { widget: "bloco", campos: { x34: "" } },
  saida_sem: { widget: "saida", campos: { atencao: false } },
  saida_com: { widget: "saida", campos: { atencao: true } },
  saida_sofa_sem: { widget: "saida", campos: { frase: "o sofá subiu no", atencao: false } },
  saida_fora: { widget: "saida", campos: { frase: "o cachorro subiu no", atencao: false } },
  prox_T0: { widget: "proximo", campos: { T: "0" } },
  prox_p0: { widget: "proximo", campos: { top_p: "0" } },
  prox_k13: { widget: "proximo", campos: { k: "13" } },
  prox_letra: { widget: "proximo", campos: { u: "meio" } },
  prox_vazio: { widget: "proximo", campos: { T: "" } },
  cfg_2017: { widget: "config-bloco", acao: "preset:2017" },
  cfg_mha: { widget: "config-bloco", campos: { atencao: "mha" } },
  comp_inf: { widget: "compute", campos: { inferencia: true } },
  comp_C: { widget: "compute", campos: { logC: "23.5" } },
};

before(async () => {
  assert.ok(existsSync(join(HTML, "_static", "widgets", "widgets.js")),
    `site sem widgets em ${HTML}: rode \`make book\` (ou defina LIVRO_HTML)`);
  assert.ok(existsSync(join(HTML, "_static", "pyodide", "pyodide.asm.wasm")),
    `falta o runtime do Python em ${HTML}: rode python -m livro_ext.widgets.pos_build _build/html`);
  acharPaginas(HTML);
  const nomes = Object.keys(PEDIDOS);
  const saida = execFileSync(PYTHON, [join(RAIZ, "tests", "navegador", "esperado.py")],
    { input: JSON.stringify({ pedidos: nomes.map((n) => PEDIDOS[n]) }), encoding: "utf8" });
  const { respostas, fatos } = JSON.parse(saida);
  ref = { fatos, r: Object.fromEntries(nomes.map((n, i) => [n, respostas[i]])) };
  servidor = await servir(HTML);
  navegador = await launch();
  contexto = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  await bloquearRede(contexto, bloqueados);
});

after(async () => {
  await navegador?.close();
  await servidor?.fechar();
  console.log(`# fotos dos widgets em ${FOTOS}`);
});

// ---------------------------------------------------------------------------
export async function abrir(nome, { ctx = contexto, srv = servidor } = {}) {
  const pg = await ctx.newPage();
  const erros = [];
  pg.on("console", (m) => { if (m.type() === "error") erros.push(m.text()); });
  pg.on("pageerror", (e) => erros.push(`pageerror: ${e.message}`));
  await pg.goto(srv.url + paginas.get(nome));
  const w = pg.locator(`.livro-widget[data-widget="${nome}"]`).first();
  return { pg, w, erros };
}

export async function pronto(pg, w) {
  await rolarAte(w);
  await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
    { timeout: ESPERA });
  assert.equal(await w.locator(".lw-status").getAttribute("data-tipo"), "pronto",
    await w.locator(".lw-status").textContent());
  assert.match(await w.locator(".lw-status").textContent(), /Pronto/);
  await sossegar(w);
}

export async function sossegar(w) {
  await w.page().waitForFunction((el) => el.dataset.ocupado === "0", await w.elementHandle(), { timeout: 10_000 });
}

// O texto que o leitor lê, sem diferença de espaços.
export async function textoSaida(w) {
  return w.locator(".lw-saida").evaluate((el) => el.textContent.replace(/\s+/g, " ").trim());
}

export async function textoDe(pg, html) {
  return pg.evaluate((h) => {
    const t = document.createElement("template");
    t.innerHTML = h;
    return t.content.textContent.replace(/\s+/g, " ").trim();
  }, html);
}

export async function confere(w, chave) {
  await sossegar(w);
  const esperado = ref.r[chave];
  if (esperado.erro) {
    const e = w.locator(".lw-erro");
    assert.equal(await e.isVisible(), true, `${chave}: a mensagem de erro não apareceu`);
    assert.equal((await e.textContent()).trim(), esperado.erro, chave);
  } else {
    assert.equal(await w.locator(".lw-erro").isVisible(), false, `${chave}: erro inesperado ` +
      await w.locator(".lw-erro").textContent());
    assert.equal(await textoSaida(w), await textoDe(w.page(), esperado.html), chave);
  }
}

// Um handler do tema na captura do document (como os do Bootstrap): que cliques de dentro dos
// widgets chegam até ele? Devolve uma função que lê a lista (o widgets.js para os cliques nos
// controles dos widgets já na captura em window: ela tem de ficar vazia).
export async function vigiarTema(pg) {
  await pg.evaluate(() => {
    globalThis.__noTema = [];
    document.addEventListener("click", (ev) => {
      if (ev.target.closest?.(".livro-widget")) globalThis.__noTema.push(ev.target.name || ev.target.dataset.acao);
    }, true);
  });
  return () => pg.evaluate(() => globalThis.__noTema);
}

export const nRespostas = (pg) => pg.evaluate(() => globalThis.livroWidgets.medidas.respostas.length);

export async function fotos(pg, w, nome) {
  // Janela alta: a foto do widget sai inteira, sem o cabeçalho fixo do tema por cima.
  await pg.evaluate(() => document.activeElement?.blur());
  const alta = async (largura) => {
    await pg.setViewportSize({ width: largura, height: 900 });
    const h = await w.evaluate((el) => el.getBoundingClientRect().height);
    await pg.setViewportSize({ width: largura, height: Math.ceil(h) + 200 });
  };
  await alta(1280);
  await rolarAte(w);
  await w.screenshot({ path: join(FOTOS, `${nome}-desktop.png`) });
  await alta(390);
  // Depois de estreitar a janela, o Chromium pode deixar um contêiner rolado de lado.
  await pg.evaluate(() => {
    document.activeElement?.blur();
    for (const e of document.querySelectorAll("*")) if (e.scrollLeft) e.scrollLeft = 0;
  });
  await rolarAte(w);
  await w.screenshot({ path: join(FOTOS, `${nome}-celular.png`) });
  const larguraExtra = await pg.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(larguraExtra <= 1, `${nome}: a página rola de lado no celular (${larguraExtra} px)`);
  await pg.setViewportSize({ width: 1280, height: 900 });
}

export function semErrosNossos(erros) {
  assert.deepEqual(erros.filter((e) => !DO_TEMA.some((r) => r.test(e))), []);
}

export async function comWidget(nome, corpo) {
  if (!paginas.has(nome)) throw new Error(`nenhuma página do site tem o widget ${nome}`);
  const { pg, w, erros } = await abrir(nome);
  try {
    const build = await textoSaida(w);
    await pronto(pg, w);
    // O Python do navegador refaz o estado inicial: tem de bater com o do build.
    assert.equal(await textoSaida(w), build, "o Pyodide e o build discordam no estado inicial");
    await corpo(pg, w);
    await fotos(pg, w, nome);
    semErrosNossos(erros);
  } finally {
    await pg.close();
  }
}

// A memória do Python guardada no Cache API pelo worker (o instantâneo): bytes, ou 0 se não há.
// Espera até 20 s que ela apareça (o worker a guarda logo depois do "pronto"); com `marca`, só
// conta uma cujo último byte é outro (a estragada de propósito tem esse byte trocado).
export async function memoriaGuardada(pg, marca = null) {
  return pg.evaluate(async (marca) => {
    const fim = performance.now() + 20_000;
    for (;;) {
      const c = await caches.open("livro-runtime");
      const k = (await c.keys()).find((r) => r.url.includes("/pyodide/memoria?v="));
      if (k) {
        const v = new Uint8Array(await (await c.match(k)).arrayBuffer());
        if (marca === null || v[v.length - 1] !== marca) return v.length;
      }
      if (performance.now() > fim) return 0;
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }, marca);
}

export const umaPagina = () => paginas.get("tokens") || paginas.values().next().value;
export const nomeDe = (pagina) => [...paginas].find(([, p]) => p === pagina)[0];
// Um celular numa rede lenta: 200 KB/s divididos entre todas as conexões.
export const LENTA = 200 * 1024;
