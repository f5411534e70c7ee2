// As fórmulas desenhadas no build (o MathJax no Node, saída CHTML, a MathML escondida para os
// leitores de tela), chamado por matematica.py: node matematica.mjs <site> <fontes> <página.html>...
import { readFileSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { mathjax } from "mathjax-full/js/mathjax.js";
import { TeX } from "mathjax-full/js/input/tex.js";
import { CHTML } from "mathjax-full/js/output/chtml.js";
import { liteAdaptor } from "mathjax-full/js/adaptors/liteAdaptor.js";
import { RegisterHTMLHandler } from "mathjax-full/js/handlers/html.js";
import { AssistiveMmlHandler } from "mathjax-full/js/a11y/assistive-mml.js";
import { AllPackages } from "mathjax-full/js/input/tex/AllPackages.js";

const [raiz, fontes, ...paginas] = process.argv.slice(2);

// Sem noerrors/noundefined: um erro de TeX vira exceção, não uma fórmula vermelha.
const PACOTES = AllPackages.filter((p) => !["noerrors", "noundefined", "autoload", "require"].includes(p));
const adaptor = liteAdaptor();
// No navegador o MathJax mede o "x" da fonte (9 px numa letra de 16 px); aqui ele supõe 0,5 em.
const ESCALA = 9 / 16 / 0.5;
AssistiveMmlHandler(RegisterHTMLHandler(adaptor));

// Um elemento do Sphinx com a classe "math" (span no texto, div em destaque).
const ELEMENTO = /<(span|div)(\s+class="(?:[^"]*\s)?math(?:\s[^"]*)?"[^>]*)>([\s\S]*?)<\/\1>/g;
// TeX fora desses elementos, que o MathJax do navegador também desenharia.
const SOLTO = /\\\(|\\\[|\$\$|\\begin\{/;

class ErroTeX extends Error {}

function textoVisivel(html) {
  return html.replace(/<(script|style|pre|code|textarea)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/<[^>]+>/g, " ");
}

function desenhar(rel, html) {
  const pedacos = [];
  const comMarcas = html.replace(ELEMENTO, (tudo, tag, attrs, dentro) => {
    pedacos.push({ tag, attrs, dentro });
    return `\u0000MATH${pedacos.length - 1}\u0000`;
  });
  const v = textoVisivel(comMarcas);
  const solto = SOLTO.exec(v);
  if (solto) {
    throw new ErroTeX(`${rel}: TeX fora de um elemento .math: «${v.slice(Math.max(0, solto.index - 60), solto.index + 60).replace(/\s+/g, " ")}»`);
  }
  if (!pedacos.length) return { html, n: 0 };

  const profundidade = posix.relative(posix.dirname(rel), ".") || ".";
  const tex = new TeX({
    packages: PACOTES,
    formatError: (jax, erro) => { throw new ErroTeX(`${rel}: erro de TeX (${erro.message}) em «${jax.latex}»`); },
  });
  const chtml = new CHTML({ fontURL: posix.join(profundidade, fontes), adaptiveCSS: true, scale: ESCALA });
  const corpo = pedacos.map((p, i) => `<div id="livro-m${i}">${p.dentro}</div>`).join("");
  const doc = mathjax.document(`<!DOCTYPE html><html><head></head><body>${corpo}</body></html>`,
    {
      InputJax: tex, OutputJax: chtml,
      // sem isto o MathJax põe a mensagem numa fórmula vermelha e segue
      compileError: (_doc, math, erro) => { throw new ErroTeX(`${rel}: erro de TeX (${erro.message}) em «${math.math}»`); },
      typesetError: (_doc, math, erro) => { throw new ErroTeX(`${rel}: a fórmula «${math.math}» não desenhou (${erro.message})`); },
    });
  doc.render();
  const formulas = Array.from(doc.math).length;
  const body = adaptor.body(doc.document);
  const saida = new Map();
  for (const el of adaptor.childNodes(body)) {
    const id = adaptor.getAttribute(el, "id") || "";
    if (id.startsWith("livro-m")) saida.set(Number(id.slice(7)), adaptor.innerHTML(el));
  }
  for (const [i, h] of saida) {
    const tex = pedacos[i].dentro.trim();
    const msg = /data-mjx-error="([^"]*)"/.exec(h);
    if (msg || /<mjx-merror/.test(h)) throw new ErroTeX(`${rel}: erro de TeX (${msg ? msg[1] : "?"}) em «${tex}»`);
    // uma chave sem par esconde o fim da fórmula: o MathJax não a acha e o TeX fica cru
    if (SOLTO.test(textoVisivel(h))) throw new ErroTeX(`${rel}: fórmula sem desenhar (chave ou delimitador sem par?) em «${tex}»`);
  }
  const css = adaptor.textContent(chtml.styleSheet(doc));
  let final = comMarcas.replace(/\u0000MATH(\d+)\u0000/g, (_t, i) => {
    const p = pedacos[Number(i)];
    return `<${p.tag}${p.attrs}>${saida.get(Number(i))}</${p.tag}>`;
  });
  final = final.replace("</head>", `<style id="MJX-CHTML-styles">\n${css}\n</style>\n</head>`);
  return { html: final, n: formulas };
}

const porPagina = {};
const erros = [];
for (const rel of paginas) {
  const arquivo = join(raiz, rel);
  const html = readFileSync(arquivo, "utf-8");
  if (html.includes('id="MJX-CHTML-styles"')) continue; // já desenhada (build incremental)
  try {
    const r = desenhar(rel.split("\\").join("/"), html);
    if (r.n) {
      writeFileSync(arquivo, r.html);
      porPagina[rel] = r.n;
    }
  } catch (e) {
    if (!(e instanceof ErroTeX)) throw e;
    erros.push(e.message);
  }
}
if (erros.length) {
  console.error(erros.join("\n"));
  process.exit(1);
}
console.log(JSON.stringify({ porPagina }));
