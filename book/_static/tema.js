// Ajustes do livro ao tema (livro_ext/tema/tema.py carrega este arquivo com defer).
//
// 1. Busca (Sphinx 7.4, searchtools.js): os trechos dos resultados saem sem o LaTeX cru
//    das fórmulas, e acham a palavra mesmo digitada sem acento ("atencao" → "atenção").
//    O botão de copiar código em português. O trecho de cada resultado é a frase com a
//    palavra; o placar põe primeiro a página que é sobre ela; o índice só vem quando o
//    leitor abre a busca.
// 2. Uma página sem sumário lateral não quebra o script do sphinx-book-theme.
// 3. Rolagem de lado: equações, tabelas e figuras mais largas que a coluna rolam dentro
//    de si (livro.css). Quem rola precisa ser alcançável pelo teclado (tabindex="0"). O
//    pydata-sphinx-theme fazia isso com o código e as saídas, medindo tudo com o layout da
//    página inteira forçado; livro_ext/tema/tema.py tira essa medida dele, e ela é só daqui.
(() => {
  "use strict";

  // Troca cada letra acentuada pela letra sem acento, sem mudar o comprimento do texto.
  const semAcento = (s) => s.replace(/[^\u0000-\u007f]/g, (c) => c.normalize("NFD")[0]);

  // --- 1. Busca --------------------------------------------------------------------------
  if (typeof Search !== "undefined") {
    const htmlToText = Search.htmlToText;
    Search.htmlToText = (html, ancora) => {
      const doc = new DOMParser().parseFromString(html, "text/html");
      // Fora do trecho: o cabeçalho do artigo (a lista de downloads, ".ipynb", ".pdf"), menus e botões.
      doc.querySelectorAll(".bd-header-article, .header-article-items, .dropdown-menu, button, script, style")
        .forEach((el) => el.remove());
      // A fórmula vira o seu texto (o MathML de acessibilidade que o build deixa), nunca o TeX.
      doc.querySelectorAll(".math, mjx-container, .MathJax, script[type^='math/']").forEach((el) => {
        if (el.isConnected) el.replaceWith(doc.createTextNode(textoDaFormula(el)));
      });
      return htmlToText(doc.documentElement.outerHTML, ancora);
    };
    // O trecho de cada resultado: a frase que tem a palavra (não o começo da página, que é o
    // mapa dos passos e a caixa "Passo k de 7"). Procura, na ordem da página, o primeiro
    // parágrafo, item ou célula com a palavra (sem acento) e mostra a frase dele.
    const resumo = Search.makeSearchSummary;
    Search.makeSearchSummary = (html, palavras, ancora) => {
      const doc = new DOMParser().parseFromString(html, "text/html");
      const main = (ancora && doc.querySelector(`[role="main"] ${ancora}`)) || doc.querySelector('[role="main"]');
      // as palavras da consulta (a de uma letra, como o p de "top-p", só dentro da consulta inteira)
      const consulta = semAcento((new URLSearchParams(location.search).get("q") || "").toLowerCase()).trim();
      const chaves = [...new Set([...palavras, ...consulta.split(/\s+/)])]
        .map((k) => semAcento(String(k).toLowerCase())).filter((k) => k.length > 1);
      const frase = main && chaves.length && fraseCom(main, chaves, consulta);
      if (!frase) return resumo(html, palavras, ancora);
      const p = document.createElement("p");
      p.classList.add("context");
      p.textContent = frase;
      return p;
    };
    prepararPlacar();
  }

  // O texto de uma fórmula: o do MathML de acessibilidade do MathJax, ou o TeX sem comandos.
  function textoDaFormula(el) {
    const mml = el.querySelector?.("mjx-assistive-mml, math");
    const t = (mml ? mml.textContent : el.textContent.replace(/\\[a-zA-Z]+|[\\{}$]|\\[()[\]]/g, " "))
      .replace(/\s+/g, " ").trim();
    return el.tagName === "DIV" ? ` ${t} ` : t;
  }

  // A frase do bloco de texto de `raiz` com a palavra (≤ 240 letras): o primeiro bloco com a
  // consulta inteira ("top-p"); senão, o primeiro com todas as palavras ("cache" e "KV");
  // senão, o primeiro com alguma. Menus, botões e a lista de downloads (.ipynb, .pdf) não contam.
  function fraseCom(raiz, chaves, consulta = "") {
    raiz.querySelectorAll(".headerlink, script, style, nav, .lv-diagrama, svg, .toctree-wrapper, .cell_input, .passo, " +
      ".bd-header-article, .header-article-items, .dropdown-menu, button, [data-widget] form")
      .forEach((el) => el.remove());
    raiz.querySelectorAll("mjx-container, .math, .MathJax").forEach((el) => {
      if (el.isConnected) el.replaceWith(raiz.ownerDocument.createTextNode(textoDaFormula(el)));
    });
    const grupos = ["p, li, dt, dd, td, th, figcaption, caption", "h1, h2, h3, h4, .admonition-title"];
    const blocos = [];
    for (const seletor of grupos) {
      for (const bloco of raiz.querySelectorAll(seletor)) {
        if (bloco.querySelector("p, li, td")) continue; // o de dentro é mais preciso
        const texto = bloco.textContent.replace(/\s+/g, " ").trim();
        if (/^\S*\.(ipynb|pdf|md|py|zip)$/i.test(texto)) continue;
        blocos.push([texto, semAcento(texto.toLowerCase())]);
      }
    }
    const criterios = [
      (base) => consulta.length > 1 && base.includes(consulta),
      (base) => chaves.every((k) => base.includes(k)),
      (base) => chaves.some((k) => base.includes(k)),
      // a palavra só no código ou num radical ("top" em "topo"): o primeiro parágrafo de texto
      (base) => base.length > 40,
    ];
    for (const vale of criterios) {
      for (const [texto, base] of blocos) {
        if (!vale(base)) continue;
        const achadas = [consulta, ...chaves].filter((k) => k.length > 1).map((k) => base.indexOf(k)).filter((i) => i > -1);
        const pos = achadas.length ? Math.min(...achadas) : 0;
        const antes = texto.slice(0, pos).search(/[.!?:;]\s[^.!?:;]*$/);
        let ini = antes > -1 ? antes + 2 : 0;
        const depois = texto.slice(pos).search(/[.!?](\s|$)/);
        let fim = depois > -1 ? pos + depois + 1 : texto.length;
        if (fim - ini > 240) { ini = Math.max(ini, pos - 100); fim = Math.min(fim, ini + 240); }
        return (ini > 0 ? "…" : "") + texto.slice(ini, fim).trim() + (fim < texto.length ? " …" : "");
      }
    }
    return null;
  }

  // O placar (Scorer.score, o gancho do Sphinx): primeiro a página cujo título tem a palavra,
  // depois a que a entrega (a 1ª frase da linha "Entrega" da caixa do passo, ver
  // livro_ext/tema/tema.py), depois a que tem uma seção com ela no título (quanto mais curto o
  // título, mais perto).
  function prepararPlacar() {
    if (typeof Scorer === "undefined") return;
    const q = new URLSearchParams(location.search).get("q") || "";
    const chaves = semAcento(q.toLowerCase()).split(/[^\p{L}\p{N}]+/u).filter((k) => k.length > 2);
    if (!chaves.length) return;
    let porPagina = null;
    const tem = (t) => chaves.every((k) => t.includes(k));
    const original = Scorer.score;
    Scorer.score = (r) => {
      const base = original ? original(r) : r[4];
      const ind = Search._index;
      if (!ind) return base;
      if (!porPagina) {
        porPagina = new Map(ind.docnames.map((d, i) => [d, { titulo: semAcento(String(ind.titles[i]).toLowerCase()), secoes: [] }]));
        for (const [titulo, onde] of Object.entries(ind.alltitles || {})) {
          for (const [i] of onde) porPagina.get(ind.docnames[i])?.secoes.push(semAcento(titulo.toLowerCase()));
        }
      }
      const pg = porPagina.get(r[0]);
      if (!pg) return base;
      if (tem(pg.titulo)) return base + 100;
      if (tem((ind.livro_destaques || {})[r[0]] || "")) return base + 60;
      const secoes = pg.secoes.filter(tem);
      if (secoes.length) return base + 30 + 10 * Math.max(...secoes.map((s) => q.length / Math.max(s.length, q.length)));
      return base;
    };
  }

  // O índice da busca não vem em toda página (book/_templates/layout.html): quando o leitor
  // abre a busca, o navegador já pede o índice e os scripts dela, e a página de resultados
  // os acha no cache.
  let adiantado = false;
  function adiantarBusca() {
    if (adiantado || typeof Search !== "undefined") return;
    adiantado = true;
    const raiz = document.documentElement.dataset.content_root || "";
    for (const arq of ["searchindex.js", "_static/searchtools.js", "_static/language_data.js"]) {
      const l = document.createElement("link");
      l.rel = "prefetch";
      l.as = "script";
      l.href = raiz + arq;
      document.head.appendChild(l);
    }
  }
  document.addEventListener("click", (ev) => {
    if (ev.target.closest?.(".search-button__button, .search-button-field, .search-button")) adiantarBusca();
  }, true);
  document.addEventListener("keydown", (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "k") adiantarBusca();
  }, true);
  document.addEventListener("focusin", (ev) => {
    if (ev.target.matches?.("input[name=q], input[type=search]")) adiantarBusca();
  });

  // --- 1b. Botão de copiar código (sphinx-copybutton 0.5 não tem português; cai no inglês).
  // O script dele já rodou (sem defer) e deixou `messages`, `locale`, `iconCopy` e
  // `iconCheck` no escopo global; os botões só nascem no DOMContentLoaded, depois daqui.
  if (typeof messages === "object" && messages?.en?.copy_to_clipboard && typeof locale === "string") {
    messages["pt-BR"] = {
      copy: "Copiar", copy_to_clipboard: "Copiar o código", copy_success: "Copiado!",
      copy_failure: "Não foi possível copiar",
    };
    locale = "pt-BR";  // eslint-disable-line no-global-assign
    const titulo = (svg, t) => svg.replace(/<title>[^<]*<\/title>/, `<title>${t}</title>`);
    if (typeof iconCopy === "string") iconCopy = titulo(iconCopy, messages["pt-BR"].copy_to_clipboard);
    if (typeof iconCheck === "string") iconCheck = titulo(iconCheck, messages["pt-BR"].copy_success);
  }

  // --- 2. O sphinx-book-theme 1.3 supõe o sumário lateral (div.bd-sidebar-secondary) em toda
  // página com conteúdo de margem ou largura total (.full-width, .margin...); numa página
  // sem sumário ele quebra com um erro no console. Um marcador vazio e escondido basta.
  if (!document.querySelector("div.bd-sidebar-secondary")) {
    const marcador = document.createElement("div");
    marcador.className = "bd-sidebar-secondary";
    marcador.hidden = true;
    document.body.appendChild(marcador);
  }

  // --- 3. Contêineres que rolam de lado --------------------------------------------------
  // Todo elemento do texto que rola de lado (overflow-x auto/scroll) e tem o que rolar ganha
  // a classe rola-de-lado (a borda esmaecida do livro.css) e, se preciso, tabindex="0".
  function marcarEm(raiz, soFora = null) {
    // Primeiro só lê (um cálculo de layout para todos), depois escreve: ler a largura de um
    // elemento logo depois de trocar a classe de outro refaria o layout da página a cada um.
    const medidas = [];
    for (const el of raiz.querySelectorAll("*")) {
      const tag = el.tagName;
      if (tag.startsWith("MJX-") && !(tag === "MJX-CONTAINER" && el.getAttribute("display") === "true")) continue;
      if (el instanceof SVGElement) continue;
      if (soFora && el.closest(soFora)) continue;
      const ox = getComputedStyle(el).overflowX;
      const pode = ox === "auto" || ox === "scroll";
      if (pode) medidas.push([el, el.scrollWidth > el.clientWidth + 1]);
      else if (el.dataset.livroTab || el.classList.contains("rola-de-lado")) medidas.push([el, false]);
    }
    for (const [el, rola] of medidas) {
      el.classList.toggle("rola-de-lado", rola);
      if (rola && !el.hasAttribute("tabindex")) {
        el.tabIndex = 0;
        el.dataset.livroTab = "1";
      } else if (!rola && el.dataset.livroTab) {
        el.removeAttribute("tabindex");
        delete el.dataset.livroTab;
      }
    }
  }
  // Medir tudo no carregamento força o desenho da página inteira de uma vez (numa página
  // longa, centenas de milissegundos num celular). Mede-se o que está fora das seções de
  // segundo nível e cada seção quando ela chega a duas telas de distância (antes de o leitor,
  // rolando ou com o Tab, chegar nela). `livroRolagem.tudo()` mede todas já (os testes usam).
  const SECAO = ".bd-article section > section";
  const medirSecao = (secao) => marcarEm(secao);
  let observador = null;
  function marcar() {
    const artigo = document.querySelector(".bd-article");
    if (!artigo) return;
    marcarEm(artigo, SECAO);
    const secoes = [...artigo.querySelectorAll(SECAO)].filter((s) => !s.parentElement.closest(SECAO));
    observador?.disconnect();
    if (!("IntersectionObserver" in globalThis)) { secoes.forEach(medirSecao); return; }
    observador = new IntersectionObserver((entradas) => {
      for (const e of entradas) {
        if (!e.isIntersecting) continue;
        observador.unobserve(e.target);
        medirSecao(e.target);
      }
    }, { rootMargin: "200% 0px" });
    secoes.forEach((s) => observador.observe(s));
  }
  globalThis.livroRolagem = {
    tudo: async () => {
      for (const s of document.querySelectorAll(SECAO)) {
        if (!s.parentElement.closest(SECAO)) { observador?.unobserve(s); medirSecao(s); }
      }
    },
  };
  let espera = null;
  const depois = () => { clearTimeout(espera); espera = setTimeout(marcar, 250); };
  // Os widgets reescrevem a saída: mede-se de novo só o widget que mudou (medir a página inteira
  // a cada resposta seria uma tarefa longa no meio das respostas seguintes).
  const mudados = new Set();
  let esperaWidget = null;
  const medirMudados = () => {
    for (const w of mudados) marcarEm(w);
    mudados.clear();
  };
  const comecar = () => {
    marcar();
    window.addEventListener("resize", depois);
    const artigo = document.querySelector(".bd-article");
    if (!artigo) return;
    new MutationObserver((registros) => {
      for (const r of registros) {
        const no = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
        const w = no && no.closest("[data-widget]");
        if (w) mudados.add(w);
      }
      if (!mudados.size) return;
      clearTimeout(esperaWidget);
      esperaWidget = setTimeout(medirMudados, 250);
    }).observe(artigo, { childList: true, subtree: true });
  };
  if (document.readyState === "complete") comecar();
  else window.addEventListener("load", comecar);

  // --- 4. Saltos para um título (#fragmento) ---------------------------------------------
  // As seções longe da tela não são desenhadas (content-visibility: auto, no livro.css) e
  // valem uma altura provisória: um salto calculado com ela cai longe do título, e as seções
  // crescem durante a rolagem. Antes de um salto na mesma página (clique num link, o "Nesta
  // página", voltar/avançar) ou ao abrir a página com um #fragmento, todas passam a ser
  // desenhadas (html.livro-desenhado), e o salto é refeito com as alturas de verdade.
  const alvoDe = (hash) => {
    try { return hash.length > 1 ? document.getElementById(decodeURIComponent(hash.slice(1))) : null; } catch { return null; }
  };
  const desenharTudo = () => document.documentElement.classList.add("livro-desenhado");
  const saltar = (alvo, focar = false) => {
    desenharTudo();
    alvo.scrollIntoView({ block: "start", behavior: "instant" });
    // um quadro depois (a página já tem as alturas de verdade), mais uma vez
    requestAnimationFrame(() => alvo.scrollIntoView({ block: "start", behavior: "instant" }));
    if (!focar) return;
    // depois de um clique (ou Enter) num link, o Tab continua do título, como num salto do
    // próprio navegador; ao abrir a página com o #fragmento, o foco fica onde o navegador o põe
    const titulo = alvo.matches("section") ? alvo.querySelector("h1, h2, h3, h4") : null;
    const foco = titulo || alvo;
    if (!foco.matches("a, button, input, select, textarea, [tabindex]")) foco.tabIndex = -1;
    foco.focus({ preventScroll: true });
  };
  document.addEventListener("click", (ev) => {
    const a = ev.target.closest?.("a[href*='#']");
    if (!a || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname !== location.pathname || url.search !== location.search) return;
    const alvo = alvoDe(url.hash);
    if (!alvo) return;
    ev.preventDefault();
    if (location.hash !== url.hash) history.pushState(null, "", url.hash);
    // No celular, o "Nesta página" é uma gaveta (um <dialog>) sobre o texto: ela fecha, para
    // o leitor ver o título onde caiu.
    a.closest("dialog[open]")?.close();
    saltar(alvo, true);
  }, true);
  window.addEventListener("popstate", () => { const alvo = alvoDe(location.hash); if (alvo) saltar(alvo); });
  window.addEventListener("hashchange", () => { const alvo = alvoDe(location.hash); if (alvo) saltar(alvo); });
  if (alvoDe(location.hash)) {
    desenharTudo();
    const refazer = () => { const alvo = alvoDe(location.hash); if (alvo) saltar(alvo); };
    refazer();
    if (document.readyState !== "complete") window.addEventListener("load", refazer, { once: true });
  }
})();
