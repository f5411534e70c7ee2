// A memória do Python guardada no Cache API, sem as páginas de 64 KB que são só zeros (metade
// dos 21 MB): "LVM1", o tamanho da memória e, em ordem crescente, cada página com algum byte
// diferente de zero, precedida do número dela; no fim, 0xFFFFFFFF (números u32, little-endian).
// Ler remonta a memória inteira (zerada) e copia as páginas; um arquivo fora disso (estragado, de
// outra versão do worker) é como nenhum: o Python inicia do jeito normal e guarda outro.
const PAGINA = 65536;
const MAGICA = 0x314d564c; // "LVM1"
const FIM = 0xffffffff;
const u32 = (...ns) => {
  const b = new Uint8Array(4 * ns.length);
  const dv = new DataView(b.buffer);
  ns.forEach((n, i) => dv.setUint32(4 * i, n, true));
  return b;
};
function zerada(p) {
  const n = p.byteOffset % 4 === 0 ? p.length >> 2 : 0;
  const k = new Uint32Array(p.buffer, p.byteOffset, n);
  for (let j = 0; j < n; j++) if (k[j]) return false;
  for (let j = 4 * n; j < p.length; j++) if (p[j]) return false;
  return true;
}
// Os pedaços do arquivo, a cada chamada uns 256 KB (4 páginas com dados), ou null no fim.
export function pedacosDaFoto(foto) {
  const paginas = Math.ceil(foto.length / PAGINA);
  let i = -1;
  return () => {
    if (i === -1) { i = 0; return [u32(MAGICA, foto.length)]; }
    if (i > paginas) return null;
    const saida = [];
    for (let postas = 0; i < paginas && postas < 4; i++) {
      const p = foto.subarray(i * PAGINA, (i + 1) * PAGINA);
      if (!zerada(p)) { saida.push(u32(i), p); postas++; }
    }
    if (i === paginas) { saida.push(u32(FIM)); i++; }
    return saida;
  };
}
export function remontarFoto(b) {
  if (b.byteLength < 12) return null;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const total = dv.getUint32(4, true);
  if (dv.getUint32(0, true) !== MAGICA || total === 0 || total > 2 ** 30) return null; // 1 GiB no máximo
  const foto = new Uint8Array(total);
  let pos = 8;
  let ultima = -1;
  while (pos + 4 <= b.byteLength) {
    const i = dv.getUint32(pos, true);
    pos += 4;
    if (i === FIM) return pos === b.byteLength ? foto : null;
    const n = Math.min(PAGINA, foto.length - i * PAGINA);
    if (i <= ultima || n <= 0 || pos + n > b.byteLength) return null;
    foto.set(b.subarray(pos, pos + n), i * PAGINA);
    pos += n;
    ultima = i;
  }
  return null;
}
