import { loadUniverse } from "./src/universe.js";
import { MarketSimulator } from "./src/market/simulator.js";
import { isTradingDay } from "@board/market-calendar";
const u = loadUniverse();
let t = performance.now(); let k=0; for (let d=0; d<1100; d++) if (isTradingDay(new Date(Date.UTC(2024,0,2+d)).toISOString().slice(0,10))) k++; console.log("calendar ms", performance.now()-t, k);
for (const seed of [42, 7, 1234]) {
const sim = new MarketSimulator(u.entries, seed);
t = performance.now(); sim.warm("2026-11-20"); console.log("seed", seed, "warm ms", (performance.now()-t).toFixed(1));
for (const s of ["SPY","AAPL","GLD","BTC-USD","ETH-USD","IBIT"]) {
  const b = sim.dailyBarsSync(s, "2026-11-20", 800); const f=b[0]!, l=b[b.length-1]!;
  let mx=0, mn=1e18, dd=0, peak=0; for (const x of b) { mx=Math.max(mx,x.close); mn=Math.min(mn,x.close); peak=Math.max(peak,x.close); dd=Math.min(dd,x.close/peak-1);}
  console.log(" ", s, f.close.toFixed(2), l.close.toFixed(2), "min", mn.toFixed(2), "max", mx.toFixed(2), "maxDD", (dd*100).toFixed(0)+"%", "vol$", (l.close*l.volume/1e6).toFixed(0)+"M");
}
const closes = u.entries.map(e => sim.dailyBarsSync(e.sym, "2026-11-20", 1)[0]!.close).sort((a,b)=>a-b);
console.log("  price quantiles", [0,0.05,0.5,0.95,1].map(q=>closes[Math.floor(q*(closes.length-1))]!.toFixed(2)).join(" "));
}
