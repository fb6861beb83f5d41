<ul onHover={function hovered() {}}>{xs.map((x) => <li key={x}>{x}</li>)}<>it's</><b f={() => 1} {...p} /></ul>;;
