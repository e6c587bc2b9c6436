import { goRender, initOracle, tsRender } from './oracle.js';
const data = {"m":{"l":"","m":[71,{"a":"0"},[],"tab\there"],"s":null,"b":{"l":{"l":null,"b":false,"s":167},"b":"a b","a":123456789}},"b":"Ü<&>\"'","l":{"b":false},"a":{"b":{"l":2.5,"m":297,"s":286,"a":128},"l":{"a":{"b":43},"s":[53,null],"b":37,"l":false}}};
const cases: string[] = [
  '{{printf "%+012t|%01.0T|%-0.s" 0x10 2 "héllo" 123.456}}',
];
test('scratch', async () => {
  await initOracle();
  const diffs: string[] = [];
  for (const c of cases) {
    const g = goRender(c, data);
    const t = tsRender(c, data);
    if (JSON.stringify(g) !== JSON.stringify(t)) diffs.push(`${JSON.stringify(c)}\n  go: ${JSON.stringify(g)}\n  ts: ${JSON.stringify(t)}`);
  }
  console.log(diffs.join('\n') + `\n${diffs.length} diffs of ${cases.length}`);
});
